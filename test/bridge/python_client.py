"""The official Python MCP SDK as a stdio host of `dbdesk-mcp` (driven by PythonClient.test.ts).

Usage: python python_client.py <node> <dbdesk-mcp.mjs> <support directory> <connection id> <mode>
Prints one JSON object per line for each step; waits for a line on stdin after the cancel, so the test can look at
the server while this session is still open.
"""
import json
import sys

import anyio
from mcp import Client, StdioServerParameters

ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c"


def say(**event):
    print(json.dumps(event), flush=True)


async def main(node, bridge, home, connection_id, mode):
    server = StdioServerParameters(command=node, args=[bridge], env={"DBDESK_HOME": home})
    async with Client(server, mode=mode, read_timeout_seconds=30) as client:
        say(step="connected", protocol=client.protocol_version)
        if mode != "legacy":
            async with client.listen(resources_list_changed=True) as subscription:
                say(step="listen", honored=subscription.honored.model_dump(by_alias=True, mode="json", exclude_none=True))
        progress = []

        async def on_progress(value, total, message):
            progress.append(value)

        result = await client.call_tool("execute_query", {"connection_id": connection_id, "query": "SELECT count(*) AS n FROM products"}, progress_callback=on_progress)
        dumped = result.model_dump(by_alias=True, mode="json", exclude_none=True)
        say(step="call", rows=dumped.get("structuredContent", {}).get("rows"), is_error=dumped.get("isError"), progress=progress)
        with anyio.move_on_after(3):
            say(step="endless")
            await client.call_tool("execute_query", {"connection_id": connection_id, "query": ENDLESS, "timeout_seconds": 300})
        say(step="cancelled")
        await anyio.to_thread.run_sync(sys.stdin.readline)
        after = await client.call_tool("execute_query", {"connection_id": connection_id, "query": "SELECT 1 AS one"})
        say(step="after", rows=after.model_dump(by_alias=True, mode="json", exclude_none=True).get("structuredContent", {}).get("rows"))


if __name__ == "__main__":
    anyio.run(main, *sys.argv[1:6])
