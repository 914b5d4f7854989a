import { useState } from "react"
import type { UiBridgeTest } from "../../../domain/UiWorkSchemas.ts"
import { call, useLoad } from "../../api.ts"
import { Skeleton } from "../../shell/Skeleton.tsx"

const CopyButton = ({ text, label }: { readonly text: string; readonly label: string }) => {
  const [done, setDone] = useState(false)
  return <button aria-label={label} onClick={() => void navigator.clipboard.writeText(text).then(() => setDone(true))}>{done ? "Copied" : "Copy"}</button>
}

/**
 * "Connect a client" (D-78): ready-to-paste entries for Claude Desktop, Claude Code, Cursor, VS Code and Windsurf
 * that start dbdesk's stdio bridge by absolute path on this machine (the same entries as `dbdesk clients install
 * --print`), the HTTP endpoint with a token for clients that speak HTTP, and a Test that runs server/discover
 * through the bridge.
 */
export const ConnectClientPanel = () => {
  const setup = useLoad((client) => client.work.clientSetup(), [])
  const tokens = useLoad((client) => client.mcp.tokens({ urlParams: {} }), [])
  const [chosen, setChosen] = useState("claude-desktop")
  const [test, setTest] = useState<UiBridgeTest | "running">()
  const [tokenId, setTokenId] = useState("")
  if (setup.error !== undefined) return <div className="error">{setup.error}</div>
  if (setup.data === undefined) return <Skeleton />
  const client = setup.data.clients.find((c) => c.id === chosen) ?? setup.data.clients[0]
  const token = (tokens.data ?? []).find((t) => t.id === tokenId)
  const runTest = () => {
    setTest("running")
    call((c) => c.work.testBridge()).then(setTest, (e: Error) => setTest({ ok: false, message: e.message, answer: null, timeMs: 0 }))
  }
  const httpSnippet = JSON.stringify({ mcpServers: { dbdesk: { type: "http", url: setup.data.endpoint, headers: { Authorization: "Bearer <your token>" } } } }, null, 2)
  return (
    <section aria-label="Connect a client">
      <h2>Connect an AI client</h2>
      <p className="note">These entries start dbdesk&apos;s stdio bridge with this computer&apos;s Node and paths, so they work even when the client does not see your shell&apos;s PATH. The bridge uses dbdesk&apos;s own token: no token to paste.</p>
      <div className="tabs" role="tablist" aria-label="Clients">
        {setup.data.clients.map((c) => <button key={c.id} role="tab" aria-selected={c.id === client?.id} onClick={() => setChosen(c.id)}>{c.name}</button>)}
      </div>
      {client !== undefined && (
        <div className="card">
          <p>Add this to <code>{client.configPath}</code>{client.note === null ? "" : ` (${client.note})`}, then restart {client.name}:</p>
          <pre className="block" aria-label={`${client.name} configuration`}>{client.snippet}</pre>
          <CopyButton text={client.snippet} label={`Copy the ${client.name} configuration`} />
          {client.command !== null && <>
            <p>Or run in a terminal:</p>
            <pre className="block" aria-label={`${client.name} command`}>{client.command}</pre>
            <CopyButton text={client.command} label={`Copy the ${client.name} command`} />
          </>}
          <p className="note">From a terminal, <code>dbdesk clients install {client.id}</code> adds it for you (a backup of the file first).</p>
        </div>
      )}
      <div className="card">
        <div className="row">
          <button className="primary" onClick={runTest} disabled={test === "running"}>Test</button>
          <span className="note">Starts the bridge as the entries do and asks dbdesk for server/discover.</span>
        </div>
        {test === "running" && <p className="progress" role="progressbar" aria-label="Testing the bridge">Starting the bridge…</p>}
        {test !== undefined && test !== "running" && (
          <div role="status" aria-label="Bridge test">
            <p className={test.ok ? "ok" : "error"}>{test.ok ? "✔" : "✖"} {test.message} {test.timeMs > 0 && <span className="note">({test.timeMs} ms)</span>}</p>
            {test.answer !== null && <pre className="json" aria-label="server/discover answer">{test.answer}</pre>}
          </div>
        )}
      </div>
      <div className="card">
        <h3>Clients that speak HTTP</h3>
        <p>Endpoint: <code>{setup.data.endpoint}</code> (this computer only). Send a token as <code>Authorization: Bearer …</code>.</p>
        <label className="row">Token
          <select aria-label="Token for HTTP" value={tokenId} onChange={(e) => setTokenId(e.target.value)}>
            <option value="">Choose a token…</option>
            {(tokens.data ?? []).filter((t) => t.state === "active").map((t) => <option key={t.id} value={t.id}>{t.name} ({t.access}, {t.prefix}…)</option>)}
          </select>
        </label>
        <p className="note">
          {token === undefined
            ? "Token values are shown only once, when created: create one in Tokens for each client."
            : `Use the value of "${token.name}" (it starts with ${token.prefix}) that was shown when it was created; if it is lost, create a new token and revoke this one.`}
        </p>
        <pre className="block" aria-label="HTTP configuration">{httpSnippet}</pre>
        <CopyButton text={httpSnippet} label="Copy the HTTP configuration" />
      </div>
    </section>
  )
}
