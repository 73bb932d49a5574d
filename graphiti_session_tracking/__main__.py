"""`python -m graphiti_session_tracking` runs the command line."""

from .cli import main

main()
