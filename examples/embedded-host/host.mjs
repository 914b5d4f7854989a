// A host application embedding dbdesk (docs/embedding.md): the MCP server runs in this process, on the host's own two
// SQLite connections (kept in memory, never written to connections.json), and every write waits for this host's own
// approval prompt on the console. Run it, give an MCP client the URL and the token it prints, press Ctrl+C to stop.
import Database from "better-sqlite3"
import { startMcpServer } from "dbdesk"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createInterface } from "node:readline"

// A real host keeps this in its own application-data directory; a fresh one here leaves the user's dbdesk alone.
const home = mkdtempSync(join(tmpdir(), "dbdesk-embedded-host-"))

const seed = (file, sql) => {
  const db = new Database(join(home, file))
  db.exec(sql)
  db.close()
  return join(home, file)
}
const inventory = seed("inventory.db", `
  CREATE TABLE products (id INTEGER PRIMARY KEY, name TEXT NOT NULL, stock INTEGER NOT NULL);
  INSERT INTO products (name, stock) VALUES ('Desk lamp', 12), ('Notebook', 40), ('Pen', 200);`)
const crm = seed("crm.db", `
  CREATE TABLE customers (id INTEGER PRIMARY KEY, name TEXT NOT NULL, email TEXT NOT NULL);
  INSERT INTO customers (name, email) VALUES ('Ada', 'ada@example.com'), ('Grace', 'grace@example.com');`)

// The console approval prompt: one question at a time, and anything but "y" or "yes" denies.
const console_ = createInterface({ input: process.stdin })
const lines = console_[Symbol.asyncIterator]()
let queue = Promise.resolve()
const approve = (request, { signal }) => {
  const answer = queue.then(async () => {
    if (signal.aborted) return false
    // What wire contract §3.1 has the app's own dialog show: the question, who asks, where, and what, verbatim.
    const who = request.clientName === undefined ? "an unnamed client" : `${request.clientName} ${request.clientVersion ?? ""}`.trim()
    const text = [
      "",
      `── approval needed ── ${request.message}`,
      `  client:     ${who}, token "${request.tokenName}" (${request.access})`,
      `  connection: ${request.connectionName} (${request.connectionId})`,
      ...(request.tool === undefined ? [] : [`  tool:       ${request.tool}`]),
      ...(request.destructive ? ["  WARNING:    this destroys data and cannot be undone"] : []),
      ...(request.statement === undefined ? [] : ["  statement:", ...request.statement.split("\n").map((line) => `    │ ${line}`)]),
      "Allow? [y/N]"
    ]
    process.stdout.write(`${text.join("\n")}\n`)
    const line = await lines.next()
    return !line.done && /^\s*y(es)?\s*$/i.test(line.value)
  })
  queue = answer.then(() => undefined, () => undefined)
  return answer
}

const server = await startMcpServer({
  home,
  port: 0,
  ui: false,
  serverInfo: { name: "example-host", title: "Example host (dbdesk embedded)" },
  connections: [
    { id: "inventory", name: "Inventory", type: "sqlite", path: inventory, externalAccess: "readWrite", aiPolicy: "alwaysAllow", confirmQueries: "writes" },
    { id: "crm", name: "CRM", type: "sqlite", path: crm, externalAccess: "readWrite", aiPolicy: "alwaysAllow", confirmQueries: "writes" }
  ],
  approve
})
server.events.on("client.connected", (client) => console.log(`client connected: ${client.clientName} ${client.clientVersion}`))
server.events.on("approval.answered", ({ decision }) => console.log(`approval answered: ${decision}`))

// fullAccess so every tool is listed; give a real client the least access it needs.
const { value } = await server.tokens.create({ name: "example client", access: "fullAccess" })
console.log(`MCP endpoint: ${server.url}`)
console.log(`Bearer token (shown once): ${value}`)

const stop = async () => {
  console_.close()
  await server.stop()
  console.log("stopped")
}
process.once("SIGINT", stop)
process.once("SIGTERM", stop)
