"""The recap a new session starts with: the previous session's best chunks and the graph's open
work about the same project (see build.py and scoring.py)."""
