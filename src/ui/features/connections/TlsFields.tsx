import type { UiConnectionInput } from "../../../domain/UiSchemas.ts"

type TlsForm = Pick<UiConnectionInput, "sslMode" | "sslCa" | "sslCert" | "sslKey" | "sslKeyPassphrase">

const File = ({ label, value, placeholder, onChange }: { label: string; value: string | undefined; placeholder: string; onChange: (v: string) => void }) => (
  <label className="field">{label}<input aria-label={label} value={value ?? ""} placeholder={placeholder} onChange={(e) => onChange(e.target.value)} /></label>
)

/**
 * The TLS files of a PostgreSQL or MySQL/MariaDB connection: the CA that signed the server's certificate (checked in
 * the verify-ca and verify-full modes) and a client certificate with its key; the key's passphrase is a secret like
 * the password (kept when left empty on edit, never shown back).
 */
export const TlsFields = ({ form, set, hasPassphrase }: { readonly form: TlsForm; readonly set: (patch: Partial<TlsForm>) => void; readonly hasPassphrase: boolean | undefined }) => {
  const verifies = form.sslMode === "verify-ca" || form.sslMode === "verify-full"
  return (
    <>
      <File label="CA certificate file" value={form.sslCa} placeholder={verifies ? "/path/to/ca.pem (empty: the system's CAs)" : "/path/to/ca.pem (used by verify-ca and verify-full)"} onChange={(sslCa) => set({ sslCa })} />
      <File label="Client certificate file" value={form.sslCert} placeholder="optional: /path/to/client.crt" onChange={(sslCert) => set({ sslCert })} />
      <File label="Client key file" value={form.sslKey} placeholder="optional: /path/to/client.key" onChange={(sslKey) => set({ sslKey })} />
      <label className="field">Client key passphrase
        <input aria-label="Client key passphrase" type="password" value={form.sslKeyPassphrase ?? ""} placeholder={hasPassphrase === true ? "leave empty to keep the saved one" : "only for an encrypted key"} onChange={(e) => set({ sslKeyPassphrase: e.target.value })} />
      </label>
    </>
  )
}
