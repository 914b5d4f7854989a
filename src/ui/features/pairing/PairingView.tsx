import { useEffect, useState } from "react"
import { call, useLoad } from "../../api.ts"

type Access = "readOnly" | "readWrite" | "fullAccess"
const EXPIRIES = [["", "Never"], ["1", "1 day"], ["7", "7 days"], ["30", "30 days"], ["90", "90 days"]] as const

/** `scopes` as pairing clients send it: readWrite or fullAccess (and their spellings), anything else read only. */
const accessOf = (scopes: string | null): Access => {
  const value = (scopes ?? "").toLowerCase().replace(/[-_\s]/g, "")
  return value === "readwrite" ? "readWrite" : value === "fullaccess" || value === "full" ? "fullAccess" : "readOnly"
}

const withParams = (base: string, params: Record<string, string>) => {
  const url = new URL(base)
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value)
  return url.toString()
}

/**
 * The pairing page (D-35): a client opened `/pair?client=…&challenge=…[&redirect=…&state=…]`;
 * the user chooses the level, connections and expiry and approves. The code goes to the client's loopback redirect,
 * or is shown here to paste; the client exchanges it with its PKCE verifier within 5 minutes.
 */
export const PairingView = ({ params }: { readonly params: URLSearchParams }) => {
  const client = params.get("client") ?? ""
  const challenge = params.get("challenge") ?? ""
  const redirect = params.get("redirect")
  const state = params.get("state")
  const connections = useLoad((c) => c.connections.list(), [])
  const [access, setAccess] = useState<Access>(accessOf(params.get("scopes")))
  const [scope, setScope] = useState<ReadonlyArray<string> | "all">(() => {
    const ids = (params.get("connection-ids") ?? "").split(",").filter((id) => id !== "")
    return ids.length === 0 ? "all" : ids
  })
  const [days, setDays] = useState("")
  const [error, setError] = useState<string>()
  const [code, setCode] = useState<{ readonly code: string; readonly expiresAt: string }>()
  const [denied, setDenied] = useState(false)
  const [now, setNow] = useState(Date.now())
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(timer)
  }, [])

  const approve = () => {
    setError(undefined)
    call((c) => c.work.approvePairing({
      payload: { client, challenge, redirect, state, access, connections: scope, expiresInDays: days === "" ? null : Number(days) }
    })).then((result) => {
      if (result.redirectTo !== null) window.location.assign(result.redirectTo)
      else setCode(result)
    }, (e: Error) => setError(e.message))
  }
  const deny = () => {
    setDenied(true)
    if (redirect !== null) {
      try {
        window.location.assign(withParams(redirect, { error: "access_denied", error_description: "user_denied", ...(state === null ? {} : { state }) }))
      } catch {
        // a malformed redirect: nothing to tell the client
      }
    }
  }

  if (client === "" || challenge === "") {
    return <section className="card"><h1>Pair a client</h1><div className="error">This pairing link is incomplete (it needs client and challenge). Start the pairing again from the client.</div></section>
  }
  const left = code === undefined ? 0 : Math.max(0, Math.round((Date.parse(code.expiresAt) - now) / 1000))
  return (
    <section className="card pairing" aria-label="Pairing">
      <h1>{client} asks for access to dbdesk</h1>
      <p>{redirect === null ? "The code will be shown here for you to paste into the client." : <>The code will be sent to <code>{redirect}</code> on this computer.</>}</p>
      {denied && <p role="status">Denied. {client} gets no token.</p>}
      {code !== undefined && (
        <div role="status" aria-label="Pairing code">
          <p>Give this code to {client}; it is valid for {Math.floor(left / 60)}:{String(left % 60).padStart(2, "0")} more.</p>
          <pre className="block" aria-label="Code">{code.code}</pre>
        </div>
      )}
      {code === undefined && !denied && <>
        <div className="form-grid">
          <label className="field">Permission level
            <select aria-label="Permission level" value={access} onChange={(e) => setAccess(e.target.value as Access)}>
              <option value="readOnly">Read only</option><option value="readWrite">Read and write</option><option value="fullAccess">Full access</option>
            </select>
          </label>
          <label className="field">Expires
            <select aria-label="Expires" value={days} onChange={(e) => setDays(e.target.value)}>{EXPIRIES.map(([value, label]) => <option key={value} value={value}>{label}</option>)}</select>
          </label>
        </div>
        <fieldset>
          <legend>Allowed connections</legend>
          <label className="row"><input type="checkbox" checked={scope === "all"} onChange={(e) => setScope(e.target.checked ? "all" : [])} /> All connections</label>
          {scope !== "all" && (connections.data ?? []).map((c) => (
            <label className="row" key={c.id}>
              <input type="checkbox" checked={scope.includes(c.id)} onChange={(e) => setScope(e.target.checked ? [...scope, c.id] : scope.filter((id) => id !== c.id))} /> {c.name}
            </label>
          ))}
        </fieldset>
        {error !== undefined && <div className="error" role="alert">{error}</div>}
        <div className="row" style={{ justifyContent: "flex-end" }}>
          <button onClick={deny} autoFocus>Deny</button>
          <button className="primary" onClick={approve}>Approve</button>
        </div>
      </>}
    </section>
  )
}
