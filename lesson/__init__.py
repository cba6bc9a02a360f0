"""MCP Churn Lab: an interactive lesson on how an MCP host copes with server churn."""
