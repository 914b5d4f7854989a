import type { UiSsh, UiSshInput } from "../../../domain/SshTunnel.ts"

type SshInput = { -readonly [K in keyof UiSshInput]: UiSshInput[K] }

const fromSaved = (saved: UiSsh | undefined): SshInput | undefined =>
  saved === undefined
    ? undefined
    : {
      host: saved.host,
      ...(saved.port === undefined ? {} : { port: saved.port }),
      ...(saved.user === undefined ? {} : { user: saved.user }),
      ...(saved.auth === undefined ? {} : { auth: saved.auth }),
      ...(saved.keyFile === undefined ? {} : { keyFile: saved.keyFile }),
      ...(saved.jumps === undefined ? {} : { jumps: [...saved.jumps] })
    }

const Field = ({ label, value, onChange, type = "text", placeholder }: { label: string; value: string | number | undefined; onChange: (v: string) => void; type?: string; placeholder?: string | undefined }) => (
  <label className="field">{label}<input aria-label={label} type={type} value={value ?? ""} placeholder={placeholder} onChange={(e) => onChange(e.target.value)} /></label>
)

/**
 * The SSH tunnel of a PostgreSQL or MySQL connection: the SSH host (or an alias of ~/.ssh/config), how to sign in,
 * and jump hosts. `value` undefined leaves a saved tunnel as it is; null removes it.
 */
export const SshFields = ({ saved, value, onChange }: {
  readonly saved: UiSsh | undefined
  readonly value: UiSshInput | null | undefined
  readonly onChange: (ssh: UiSshInput | null) => void
}) => {
  const current: SshInput | undefined = value === null ? undefined : value === undefined ? fromSaved(saved) : { ...value }
  const on = current !== undefined
  const set = (patch: Partial<SshInput>) => onChange({ ...(current ?? { host: "" }), ...patch })
  const keep = (has: boolean | undefined) => (saved !== undefined && has === true ? "leave empty to keep the saved one" : undefined)
  return (
    <fieldset className="form-grid" aria-label="SSH tunnel" style={{ gridColumn: "1 / -1" }}>
      <label className="row"><input type="checkbox" aria-label="Connect through SSH" checked={on} onChange={(e) => onChange(e.target.checked ? { host: "" } : null)} /> Connect through an SSH tunnel</label>
      {on && <>
        <Field label="SSH host" value={current.host} onChange={(host) => set({ host })} placeholder="bastion.example.com or an alias of ~/.ssh/config" />
        <Field label="SSH port" type="number" value={current.port} onChange={(v) => set(v === "" ? { port: undefined as never } : { port: Number(v) })} placeholder="22, or the alias's Port" />
        <Field label="SSH user" value={current.user} onChange={(user) => set({ user })} placeholder="the alias's User, or yours" />
        <label className="field">SSH sign-in
          <select aria-label="SSH sign-in" value={current.auth ?? ""} onChange={(e) => set(e.target.value === "" ? { auth: undefined as never } : { auth: e.target.value as SshInput["auth"] & string })}>
            <option value="">From ~/.ssh/config (IdentityFile), else the agent</option>
            <option value="agent">SSH agent</option>
            <option value="key">Private key file</option>
            <option value="password">Password</option>
          </select>
        </label>
        {current.auth === "key" && <>
          <Field label="SSH key file" value={current.keyFile} onChange={(keyFile) => set({ keyFile })} placeholder="~/.ssh/id_ed25519" />
          <Field label="Key passphrase" type="password" value={current.passphrase} onChange={(passphrase) => set({ passphrase })} placeholder={keep(saved?.hasPassphrase) ?? "only for an encrypted key"} />
        </>}
        {current.auth === "password" && <Field label="SSH password" type="password" value={current.password} onChange={(password) => set({ password })} placeholder={keep(saved?.hasPassword)} />}
        <Field label="Jump hosts" value={(current.jumps ?? []).join(", ")} onChange={(v) => set({ jumps: v.split(",").map((jump) => jump.trim()) })} placeholder="user@jump:22, another-alias (first dialled first)" />
        <p className="note" style={{ gridColumn: "1 / -1" }}>Host and port above are then as the SSH host sees the database (often 127.0.0.1). dbdesk checks the SSH host's key against ~/.ssh/known_hosts and asks you once about a key it has not seen.</p>
      </>}
    </fieldset>
  )
}
