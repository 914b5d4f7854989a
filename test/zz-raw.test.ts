import { it } from "vitest"
import * as net from "node:net"
import { startTestServer } from "./support/TestServer.ts"
const send = (port: number, bytes: string) => new Promise<string>((resolve) => {
  const s = net.connect(port, "127.0.0.1"); let data = ""; let err = ""
  const t = setTimeout(() => { s.destroy(); resolve(`TIMEOUT ${JSON.stringify(data.slice(0,100))}`) }, 4000)
  s.on("data", (c) => (data += c.toString("latin1"))); s.on("error", (e: any) => (err = e.code)); s.on("close", () => { clearTimeout(t); resolve(`[${err}] ${JSON.stringify(data.slice(0, 100))}`) })
  s.on("connect", () => s.write(bytes))
})
it("raw", async () => {
  const server = await startTestServer({ settings: { mcp: { requireAuth: false } } })
  const p = server.port
  const body = '{"jsonrpc":"2.0","id":1,"method":"server/discover","params":{}}'
  const cases: Record<string, string> = {
    empty: "\r\n\r\n",
    doublespace: "POST  /mcp  HTTP/1.1\r\n\r\n",
    longline: `${"A".repeat(20000)} / HTTP/1.1\r\n\r\n`,
    badchunk1: `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${p}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\nzz\r\nabc\r\n0\r\n\r\n`,
    badchunk2: `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${p}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n5\r\nab\r\n0\r\n\r\n`,
    badchunk3: `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${p}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n-1\r\n\r\n`,
    badchunk4: `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${p}\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\nffffffffffffffff\r\n`,
    clte: `POST /mcp HTTP/1.1\r\nhost: 127.0.0.1:${p}\r\ntransfer-encoding: chunked\r\ncontent-length: ${body.length}\r\n\r\n${body}`,
  }
  for (const [name, bytes] of Object.entries(cases)) console.log(`R ${name} ${await send(p, bytes)}`)
  await server.stop()
}, 60000)
