// D-93 on MariaDB: a held read stopped on its fields (the guard's refusal) sends KILL QUERY for its statement; when
// the statement has already ended on its own, the session must not go back to the pool before the server has taken
// that kill, or the kill interrupts the next statement on the same session. The killer's connection is made slow
// (a proxy holds new connections) so the kill is still on the way when the refused read ends.
import { afterAll, beforeAll, expect, it } from "vitest"
import { type CorpusServer, policyRefusalOf, startCorpusServer } from "../support/GuardCorpus.ts"
import { type FaultProxy, startFaultProxy } from "../support/FaultProxy.ts"
import { type MariadbServer, startMariadb } from "../support/MariadbHarness.ts"
import { describeMariadb } from "../support/MariadbSuite.ts"

const ROOT = { user: "dbdesk_kill_root", password: "kill-root-pw-3c1b" }
const KILL_DELAY_MS = 1500

describeMariadb("D-93: a late KILL QUERY never reaches the next statement", () => {
  let mariadb: MariadbServer
  let proxy: FaultProxy
  let corpus: CorpusServer

  beforeAll(async () => {
    mariadb = await startMariadb()
    const admin = mariadb.admin()
    await admin.query(`CREATE USER '${ROOT.user}'@'127.0.0.1' IDENTIFIED BY '${ROOT.password}'`)
    await admin.query(`GRANT ALL ON *.* TO '${ROOT.user}'@'127.0.0.1'`)
    await admin.query(
      `CREATE VIEW ${mariadb.database}.v_auth AS SELECT User, authentication_string AS au FROM mysql.user`
    )
    await admin.query(`CREATE TABLE ${mariadb.database}.t (id INT PRIMARY KEY)`)
    await admin.query(`INSERT INTO ${mariadb.database}.t VALUES (1)`)
    proxy = await startFaultProxy(mariadb.port)
    corpus = await startCorpusServer([{
      type: "mysql",
      id: "maria",
      name: "MariaDB",
      host: "127.0.0.1",
      port: proxy.port,
      database: mariadb.database,
      user: ROOT.user,
      password: ROOT.password,
      sslMode: "disabled",
      externalAccess: "readWrite",
      aiPolicy: "alwaysAllow"
    }])
  }, 180_000)

  afterAll(async () => {
    await corpus?.stop()
    await proxy?.close()
    await mariadb?.stop()
  }, 60_000)

  it(
    "D-93: the read after a refused one on the same session is not interrupted by the refused read's kill",
    async () => {
      const warm = await corpus.call("readWrite", "execute_query", {
        connection_id: "maria",
        query: "SELECT id FROM t"
      })
      expect(warm.json.result.isError, warm.text).toBe(false)
      // The killer's connection is opened on the first kill: it now reaches the server only after KILL_DELAY_MS.
      proxy.delayNew(KILL_DELAY_MS)
      const refused = await corpus.call("readWrite", "execute_query", {
        connection_id: "maria",
        query: "SELECT CONCAT(au) FROM v_auth"
      })
      expect(policyRefusalOf(refused), refused.text).toMatchObject({ gate: "secret_catalog" })
      // The next read waits on a table lock past the moment a late kill would land on it.
      const locker = mariadb.admin()
      await locker.query(`LOCK TABLES ${mariadb.database}.t WRITE`)
      const unlock = setTimeout(() => void locker.query("UNLOCK TABLES"), KILL_DELAY_MS + 1500)
      try {
        const next = await corpus.call("readWrite", "execute_query", {
          connection_id: "maria",
          query: "SELECT id FROM t"
        })
        expect(next.json.result.isError, next.text).toBe(false)
        expect(next.json.result.structuredContent.rows).toEqual([[1]])
      } finally {
        clearTimeout(unlock)
        await locker.query("UNLOCK TABLES")
      }
    },
    60_000
  )
})
