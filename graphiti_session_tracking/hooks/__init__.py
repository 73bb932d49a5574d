"""Claude Code hooks: capture each session as it ends, recall the project's recap as one starts."""
