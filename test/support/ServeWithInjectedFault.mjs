// `dbdesk serve` with a fault planted in pg (tests of D-74 only): a data row holding the text
// "dbdesk-injected-fault" makes pg's socket callback throw, outside any promise, as the postgres 3.4.9 crash did.
// The error text carries the session's password, so the test can check that the log line is redacted.
import { register } from "tsx/esm/api"

register()
const pg = (await import("pg")).default
const handleDataRow = pg.Client.prototype._handleDataRow
pg.Client.prototype._handleDataRow = function (message) {
  if (message.fields.includes("dbdesk-injected-fault")) throw new TypeError(`injected fault (session password ${this.password})`)
  return handleDataRow.call(this, message)
}
await import("../../src/main.ts")
