"""The default prompt templates, shipped inside the package as graphiti_session_tracking.prompts."""
