import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client"

/** The official 2.4.0 client pinned to 2026-07-28, optionally with a bearer token. */
export const connectModernClient = async (
  url: string,
  options: { token?: string; capabilities?: Record<string, unknown> } = {}
) => {
  const client = new Client(
    { name: "dbdesk-tests", version: "1.0.0" },
    {
      versionNegotiation: { mode: { pin: "2026-07-28" } },
      ...(options.capabilities === undefined ? {} : { capabilities: options.capabilities })
    }
  )
  const headers: Record<string, string> = options.token === undefined
    ? {}
    : { authorization: `Bearer ${options.token}` }
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers } }))
  return client
}

/** Parses an SSE body into the JSON messages of its `data:` frames, in order. */
export const sseMessages = (text: string): Array<any> =>
  text.split("\n\n").filter((frame) => frame.startsWith("data: ")).map((frame) =>
    JSON.parse(frame.slice("data: ".length))
  )
