import { useState } from "react"
import { ruleLine } from "../../../domain/MaskingRules.ts"
import type { ConnectionKind, UiConnection, UiConnectionInput, UiMaskingRule } from "../../../domain/UiSchemas.ts"
import { call, useLoad } from "../../api.ts"
import { parseConnectionUrl } from "../../../domain/ConnectionUrl.ts"
import { ClusterOptions } from "./ClusterOptions.tsx"
import { CopyAsUrl } from "./CopyAsUrl.tsx"
import { CostGuardFields } from "./CostGuardFields.tsx"
import { TlsFields } from "./TlsFields.tsx"
import { SshFields } from "./SshFields.tsx"
import { AI_POLICY, COLORS, CONFIRM_QUERIES, EXTERNAL_ACCESS } from "./labels.ts"
import { TestResult, type TestState } from "./TestResult.tsx"

type Form = { -readonly [K in keyof UiConnectionInput]: UiConnectionInput[K] }

const initial = (connection: UiConnection | undefined, type: ConnectionKind): Form => ({
  name: connection?.name ?? "",
  type: connection?.type ?? type,
  externalAccess: connection?.externalAccess ?? "readOnly",
  aiPolicy: connection?.aiPolicy ?? "askEachTime",
  confirmQueries: connection?.confirmQueries ?? "writes",
  secretCatalogs: connection?.secretCatalogs ?? "closed",
  color: connection?.color ?? "",
  production: connection?.production ?? false,
  group: connection?.group ?? "",
  ...(connection?.path === undefined ? {} : { path: connection.path }),
  ...(connection?.host === undefined ? {} : { host: connection.host }),
  ...(connection?.port === undefined ? {} : { port: connection.port }),
  ...(connection?.database === undefined ? {} : { database: connection.database }),
  ...(connection?.user === undefined ? {} : { user: connection.user }),
  ...(connection?.sslMode === undefined ? {} : { sslMode: connection.sslMode }),
  ...(connection?.sslCa === undefined ? {} : { sslCa: connection.sslCa }),
  ...(connection?.sslCert === undefined ? {} : { sslCert: connection.sslCert }),
  ...(connection?.sslKey === undefined ? {} : { sslKey: connection.sslKey }),
  ...(connection?.skipTlsVerification === undefined ? {} : { skipTlsVerification: connection.skipTlsVerification }),
  ...(connection?.costGuard === undefined ? {} : { costGuard: connection.costGuard }),
  ...(connection?.costMaxRows === undefined ? {} : { costMaxRows: connection.costMaxRows }),
  ...(connection?.costMaxCost === undefined ? {} : { costMaxCost: connection.costMaxCost }),
  ...(connection === undefined ? {} : clusterOf(connection))
})

/**
 * D-103: a duplicate is a new connection with every setting of the original except its secrets (password, API key,
 * key passphrase, SSH password or passphrase), named "… copy"; the user types the secret again.
 */
const duplicateOf = (original: UiConnection): Form => ({
  ...initial(original, original.type),
  name: `${original.name} copy`,
  ...(original.ssh === undefined ? {} : {
    ssh: {
      host: original.ssh.host,
      ...(original.ssh.port === undefined ? {} : { port: original.ssh.port }),
      ...(original.ssh.user === undefined ? {} : { user: original.ssh.user }),
      ...(original.ssh.auth === undefined ? {} : { auth: original.ssh.auth }),
      ...(original.ssh.keyFile === undefined ? {} : { keyFile: original.ssh.keyFile }),
      ...(original.ssh.jumps === undefined ? {} : { jumps: [...original.ssh.jumps] })
    }
  })
})

/** D-59: the cluster settings a saved search connection has. */
const clusterOf = (connection: UiConnection): Partial<Form> => {
  const { connectionTimeoutSeconds, healthcheckIntervalSeconds, nearestNode, nodes, numRetries, randomizeNodes, retryIntervalSeconds } = connection
  return Object.fromEntries(Object.entries({ nodes, nearestNode, healthcheckIntervalSeconds, numRetries, retryIntervalSeconds, connectionTimeoutSeconds, randomizeNodes }).filter(([, value]) => value !== undefined))
}

const TITLES: Record<ConnectionKind, string> = { sqlite: "SQLite", postgresql: "PostgreSQL", mysql: "MySQL / MariaDB", search: "Typesense" }
const DEFAULT_PORTS: Partial<Record<ConnectionKind, string>> = { postgresql: "5432", mysql: "3306" }

const Text = ({ label, value, onChange, type = "text", placeholder }: { label: string; value: string | number | undefined; onChange: (v: string) => void; type?: string; placeholder?: string }) => (
  <label className="field">{label}<input aria-label={label} type={type} value={value ?? ""} placeholder={placeholder} onChange={(e) => onChange(e.target.value)} /></label>
)

const Choice = ({ label, value, options, onChange }: { label: string; value: string; options: ReadonlyArray<readonly [string, string]>; onChange: (v: string) => void }) => (
  <label className="field">{label}<select aria-label={label} value={value} onChange={(e) => onChange(e.target.value)}>{options.map(([v, text]) => <option key={v} value={v}>{text}</option>)}</select></label>
)

/** The masking rules box: one rule a line, `mask users.password_hash` or `hide *.ssn` (D-65). */
const parseRules = (text: string): Array<UiMaskingRule> | string => {
  const rules: Array<UiMaskingRule> = []
  for (const [index, line] of text.split("\n").entries()) {
    if (line.trim() === "") continue
    const match = /^\s*(mask|hide)\s+(\S+)\s*$/i.exec(line)
    if (match === null) return `Masking rules, line ${index + 1}: write mask or hide, then a pattern such as users.password_hash or *.ssn.`
    rules.push({ action: match[1]!.toLowerCase() as UiMaskingRule["action"], pattern: match[2]! })
  }
  return rules
}

/**
 * URL import: a postgresql://, postgres://, mysql://, mariadb:// or sqlite: URL fills the form of a new connection
 * (its type too). A password in it goes to the password field, saved as a secret like a typed one.
 */
const fromUrl = (text: string, form: Form): { readonly form: Form; readonly note?: string } | string => {
  const parsed = parseConnectionUrl(text)
  if (!parsed.ok) return parsed.error
  const { type, ...fields } = parsed.fields
  const keep = {
    name: form.name,
    externalAccess: form.externalAccess,
    aiPolicy: form.aiPolicy,
    confirmQueries: form.confirmQueries,
    ...(form.secretCatalogs === undefined ? {} : { secretCatalogs: form.secretCatalogs })
  }
  const next: Form = { ...keep, type, ...fields, ...(type === "sqlite" || fields.port !== undefined ? {} : { port: type === "postgresql" ? 5432 : 3306 }) }
  return parsed.ignored.length === 0 ? { form: next } : { form: next, note: `dbdesk does not use these URL parameters and left them out: ${parsed.ignored.join(", ")}.` }
}

/** New/edit form per driver (D-60); search settings per doc 2 §2.1, Skip TLS on an Options tab. */
export const ConnectionForm = ({ connection, copyOf, onDone }: {
  readonly connection: UiConnection | undefined
  /** D-103: a new connection filled from this one, without its secrets. */
  readonly copyOf?: UiConnection | undefined
  readonly onDone: () => void
}) => {
  const drivers = useLoad((client) => client.connections.drivers(), [])
  const [form, setForm] = useState<Form | undefined>(connection !== undefined ? initial(connection, connection.type) : copyOf === undefined ? undefined : duplicateOf(copyOf))
  const [tab, setTab] = useState<"general" | "options">("general")
  const [error, setError] = useState<string>()
  const [busy, setBusy] = useState<string>()
  const [url, setUrl] = useState("")
  const [note, setNote] = useState<string>()
  const [rules, setRules] = useState(((connection ?? copyOf)?.maskingRules ?? []).map(ruleLine).join("\n"))
  const [tested, setTested] = useState<TestState & { readonly saving?: boolean }>()
  const [testing, setTesting] = useState<AbortController>()
  const set = (patch: Partial<Form>) => { setTested(undefined); setForm((f) => (f === undefined ? f : { ...f, ...patch })) }

  if (form === undefined) {
    const install = () => {
      setBusy("Installing the Typesense driver…")
      call((client) => client.connections.enableDriver({ path: { type: "search" } })).then(
        () => { setBusy(undefined); drivers.reload() },
        (e: Error) => { setBusy(undefined); setError(e.message) }
      )
    }
    return (
      <section className="card" aria-label="Choose a connection type">
        <h2>New connection</h2>
        {drivers.error !== undefined && <div className="error">{drivers.error}</div>}
        {(drivers.data ?? []).map((driver) => (
          <div className="row" key={driver.type} style={{ marginBottom: 6 }}>
            <span style={{ width: 220 }}>{driver.title}</span>
            {driver.state === "available"
              ? <button onClick={install} disabled={busy !== undefined}>Install</button>
              : <button className="primary" aria-label={`Choose ${driver.title}`} onClick={() => setForm(initial(undefined, driver.type))}>Choose</button>}
          </div>
        ))}
        {busy !== undefined && <p className="progress">{busy}</p>}
        {error !== undefined && <div className="error">{error}</div>}
        <button onClick={onDone}>Cancel</button>
      </section>
    )
  }

  const payloadOf = (): UiConnectionInput | undefined => {
    setError(undefined)
    const maskingRules = parseRules(rules)
    if (typeof maskingRules === "string") {
      setError(maskingRules)
      return undefined
    }
    return { ...form, maskingRules }
  }
  const store = (payload: UiConnectionInput) => {
    setBusy("Saving…")
    const request = connection === undefined
      ? call((client) => client.connections.add({ payload }))
      : call((client) => client.connections.update({ path: { id: connection.id }, payload }))
    request.then(() => { setBusy(undefined); onDone() }, (e: Error) => { setBusy(undefined); setError(e.message) })
  }
  /** Tests the form's fields as they are (a saved password is kept when the field is empty); `then` runs on success. */
  const test = (payload: UiConnectionInput, then?: () => void) => {
    const controller = new AbortController()
    setTesting(controller)
    setTested({ kind: "testing" })
    const probe = { connection: payload, ...(connection === undefined ? {} : { id: connection.id }) }
    call((client) => client.connections.testInput({ payload: probe }), controller.signal).then(
      (result) => {
        if (controller.signal.aborted) return
        setTested({ kind: result.ok ? "ok" : "failed", message: result.message, ...(then === undefined ? {} : { saving: true }) })
        if (result.ok) then?.()
      },
      // a refusal of the fields themselves (a missing name) is the form's error, not the connection's
      (e: Error) => { if (!controller.signal.aborted) { setTested(undefined); setError(e.message) } }
    ).finally(() => setTesting((current) => (current === controller ? undefined : current)))
  }
  const cancelTest = () => {
    testing?.abort()
    setTesting(undefined)
    setTested({ kind: "cancelled", message: "Test cancelled; nothing was saved." })
  }
  /** Save tests first; a failed test offers "Save anyway". A Typesense connection is tested from the list once saved. */
  const save = () => {
    const payload = payloadOf()
    if (payload === undefined) return
    if (form.type === "search") return store(payload)
    test(payload, () => store(payload))
  }
  const testOnly = () => {
    const payload = payloadOf()
    if (payload !== undefined) test(payload)
  }
  const port = (v: string) => set(v === "" ? { port: undefined as never } : { port: Number(v) })
  const secretHint = connection === undefined ? undefined : "leave empty to keep the saved one"

  return (
    <section className="card" aria-label="Connection form">
      <h2>{connection === undefined ? "New" : "Edit"} {TITLES[form.type]} connection</h2>
      {copyOf !== undefined && (
        <p className="note" role="note">
          A copy of '{copyOf.name}' with all its settings except its secrets: {copyOf.type === "search" ? "enter the API key" : "enter the password"} again if it needs one.
        </p>
      )}
      {form.type === "search" && (
        <div className="tabs" role="tablist">
          <button role="tab" aria-selected={tab === "general"} onClick={() => setTab("general")}>General</button>
          <button role="tab" aria-selected={tab === "options"} onClick={() => setTab("options")}>Options</button>
        </div>
      )}
      {tab === "general" && (
        <div className="form-grid">
          <Text label="Name" value={form.name} onChange={(name) => set({ name })} />
          {form.type === "sqlite" && <Text label="Database file" value={form.path} onChange={(path) => set({ path })} placeholder="/path/to/file.db" />}
          {form.type !== "sqlite" && <Text label="Host" value={form.host} onChange={(host) => set({ host })} />}
          {form.type !== "sqlite" && <Text label="Port" type="number" value={form.port} onChange={port} placeholder={DEFAULT_PORTS[form.type] ?? (form.sslMode === undefined || form.sslMode === "Disabled" ? "8108" : "443")} />}
          {form.type === "postgresql" && <>
            <Text label="Database" value={form.database} onChange={(database) => set({ database })} />
            <Text label="User" value={form.user} onChange={(user) => set({ user })} />
            <Text label="Password" type="password" value={form.password} onChange={(password) => set({ password })} {...(secretHint === undefined ? {} : { placeholder: connection?.hasPassword ? secretHint : "" })} />
            <Choice label="SSL mode" value={form.sslMode ?? "prefer"} options={["disable", "prefer", "require", "verify-ca", "verify-full"].map((m) => [m, m] as const)} onChange={(sslMode) => set({ sslMode })} />
          </>}
          {form.type === "mysql" && <>
            <Text label="Database" value={form.database} onChange={(database) => set({ database })} placeholder="optional" />
            <Text label="User" value={form.user} onChange={(user) => set({ user })} />
            <Text label="Password" type="password" value={form.password} onChange={(password) => set({ password })} {...(secretHint === undefined ? {} : { placeholder: connection?.hasPassword ? secretHint : "" })} />
            <Choice label="SSL mode" value={form.sslMode ?? "preferred"} options={["disabled", "preferred", "required", "verify-ca", "verify-full"].map((m) => [m, m] as const)} onChange={(sslMode) => set({ sslMode })} />
          </>}
          {(form.type === "postgresql" || form.type === "mysql") && <TlsFields form={form} set={set} hasPassphrase={connection?.hasSslKeyPassphrase} />}
          {form.type === "search" && <>
            <Text label="API key" type="password" value={form.apiKey} onChange={(apiKey) => set({ apiKey })} {...(secretHint === undefined ? {} : { placeholder: secretHint })} />
            <Choice label="SSL mode" value={form.sslMode ?? "Disabled"} options={["Disabled", "Preferred", "Required", "VerifyCA", "VerifyIdentity"].map((m) => [m, m] as const)} onChange={(sslMode) => set({ sslMode })} />
          </>}
          {(form.type === "postgresql" || form.type === "mysql") && <SshFields saved={connection?.ssh} value={form.ssh} onChange={(ssh) => set({ ssh })} />}
          <Choice label="External access" value={form.externalAccess} options={EXTERNAL_ACCESS} onChange={(v) => set({ externalAccess: v as Form["externalAccess"] })} />
          <Choice label="AI policy" value={form.aiPolicy} options={AI_POLICY} onChange={(v) => set({ aiPolicy: v as Form["aiPolicy"] })} />
          <Choice label="Confirm queries" value={form.confirmQueries} options={CONFIRM_QUERIES} onChange={(v) => set({ confirmQueries: v as Form["confirmQueries"] })} />
          {(form.type === "postgresql" || form.type === "mysql") && (
            <Choice label="Secret catalogs" value={form.secretCatalogs ?? "closed"} options={[["closed", "Closed to AI clients"], ["open", "Open to AI clients"]]} onChange={(v) => set({ secretCatalogs: v as "closed" | "open" })} />
          )}
          {(form.type === "postgresql" || form.type === "mysql") && <CostGuardFields form={form} set={set} />}
          <label className="field">Masking rules (AI clients only; one a line)
            <textarea aria-label="Masking rules" rows={3} value={rules} placeholder={form.type === "search" ? "mask users.api_key\nhide *.ssn" : "mask users.password_hash\nhide *.ssn"} onChange={(e) => setRules(e.target.value)} />
          </label>
        </div>
      )}
      {/* More field groups (SSH tunnel, TLS files) go here, each a <fieldset className="form-section"> of its own. */}
      {tab === "general" && (
        <fieldset className="form-section">
          <legend>Appearance</legend>
          <div className="color-choices" role="radiogroup" aria-label="Colour">
            {COLORS.map(([value, name]) => (
              <label key={name} title={name}>
                <input type="radio" name="connection-color" aria-label={name} checked={(form.color ?? "") === value} onChange={() => set({ color: value })} />
                {value === "" ? name : <span className="connection-dot" style={{ background: value }} />}
              </label>
            ))}
          </div>
          <label className="row"><input type="checkbox" checked={form.production ?? false} onChange={(e) => set({ production: e.target.checked })} /> Production database (every tab of it says so)</label>
          <Text label="Group" value={form.group} onChange={(group) => set({ group })} placeholder="e.g. Local, Staging (the list groups connections by it)" />
        </fieldset>
      )}
      {tab === "options" && form.type === "search" && (
        <>
          <label className="row"><input type="checkbox" checked={form.skipTlsVerification ?? false} onChange={(e) => set({ skipTlsVerification: e.target.checked })} /> Skip TLS verification (accepts any certificate, for example a self-signed proxy)</label>
          <ClusterOptions form={form} set={set} connectionId={connection?.id} />
        </>
      )}
      {form.type !== "search" && connection === undefined && (
        <div className="row" style={{ marginTop: 8 }}>
          <input aria-label="Connection URL" style={{ flex: 1 }} value={url} placeholder="postgresql://, mysql://, mariadb:// or sqlite: URL" onChange={(e) => setUrl(e.target.value)} />
          {/* The URL field is cleared on import: a password in it lives on only in the (masked) password field. */}
          <button onClick={() => { const next = fromUrl(url, form); if (typeof next === "string") setError(next); else { setForm(next.form); setNote(next.note); setUrl(""); setError(undefined) } }}>Import URL</button>
        </div>
      )}
      {note !== undefined && <p className="note">{note}</p>}
      {connection !== undefined && <CopyAsUrl connection={connection} />}
      {form.type === "search" && <p className="note">Typesense connections have no SSH, tunnel or URL import: reach private nodes through a reverse proxy.</p>}
      {error !== undefined && <div className="error" role="alert">{error}</div>}
      {busy !== undefined && <p className="progress">{busy}</p>}
      {tested !== undefined && (
        <TestResult state={tested} label="Connection test" onCancel={cancelTest}>
          {tested.kind === "failed" && tested.saving === true && (
            <button className="danger" onClick={() => { const payload = payloadOf(); if (payload !== undefined) store(payload) }}>Save anyway</button>
          )}
        </TestResult>
      )}
      <div className="row" style={{ marginTop: 8 }}>
        <button className="primary" onClick={save} disabled={busy !== undefined || testing !== undefined} title="Tests the connection, then saves it">Save</button>
        {form.type !== "search" && <button onClick={testOnly} disabled={busy !== undefined || testing !== undefined}>Test</button>}
        <button onClick={onDone}>Cancel</button>
      </div>
    </section>
  )
}
