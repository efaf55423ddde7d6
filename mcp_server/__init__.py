"""`translation-agent mcp`: an MCP server (stdio or streamable HTTP) for coding agents and assistants.

It is a client of the service's HTTP API (docs/api.md), local or deployed, exactly as the terminal
client is: every tool is a few API requests, and nothing here reads or writes the service's storage.
The review stays a person's: the agent may propose, read and relay, and a verdict goes through only
for the exact proposal the person was shown (docs/mcp.md).
"""
