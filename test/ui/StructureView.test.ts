// The structure view of a SQL table on SQLite, PostgreSQL and MariaDB: per column default, comment and keys (primary,
// unique, foreign with the referenced column), CHECK constraints, triggers, indexes, foreign keys out and in with
// their column pairs, and the DDL highlighted with a keyboard-reachable Copy button. Names with quotes, spaces and
// mixed case throughout, and a string default that reads like a CHECK.
import Database from "better-sqlite3"
import { randomUUID } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { openUi, screenshot, type UiSession } from "../support/Browser.ts"
import { type MariadbServer, startMariadb } from "../support/MariadbHarness.ts"
import { describeMariadb } from "../support/MariadbSuite.ts"
import { type PostgresServer, startPostgres } from "../support/PostgresHarness.ts"
import { describePostgres } from "../support/PostgresSuite.ts"
import { tempHome } from "../support/TestServer.ts"

const common = { externalAccess: "readWrite", aiPolicy: "alwaysAllow", confirmQueries: "writes" }

/** The UI with one connection; `structure(table)` reads the UI API as the page does (with its cookie). */
const openWith = async (connection: Record<string, unknown>) => {
  const home = tempHome()
  const id = randomUUID()
  writeFileSync(
    join(home, "connections.json"),
    JSON.stringify({ version: 1, connections: [{ id, ...common, ...connection }] }),
    { mode: 0o600 }
  )
  const ui = await openUi({ home })
  const structure = async (table: string): Promise<any> => {
    const response = await ui.page.request.get(
      `${ui.ui.origin}/api/connections/${id}/tables/${encodeURIComponent(table)}/structure`
    )
    expect(response.status()).toBe(200)
    return response.json()
  }
  return { ui, structure }
}

const ACCOUNTS = "Customer Accounts"
const EMAIL = "e\"mail"
const TRIGGER = "touch \"it\""

/** What every engine must show for the accounts table (names as the engine stores them). */
const expectAccounts = (s: any) => {
  const detail = (name: string) => s.columnDetails.find((c: any) => c.name === name)
  expect(detail("status").defaultValue).toMatch(/'new'/)
  expect(detail("credit").defaultValue).toMatch(/^'?0'?$/)
  expect(s.columns.find((c: any) => c.name === "Id").isPrimaryKey).toBe(true)
  expect(
    s.indexes.some((i: any) =>
      i.unique && i.columns.map((c: string) => c.replace(/^"|"$/g, "").replaceAll("\"\"", "\"")).join() === EMAIL
    )
  ).toBe(true)
  expect(s.checks.map((c: any) => c.name)).toContain("credit ok")
  expect(s.checks.find((c: any) => c.name === "credit ok").expression).toMatch(/credit.*>=\s*0/)
  expect(s.checks.some((c: any) => /status/.test(c.expression) && /'active'/.test(c.expression))).toBe(true)
  expect(s.checks.some((c: any) => /CHECK \(x\)/.test(c.expression))).toBe(false)
  expect(s.triggers).toHaveLength(1)
  expect(s.triggers[0]).toMatchObject({
    name: TRIGGER,
    timing: expect.stringMatching(/^(BEFORE|AFTER)$/),
    event: expect.stringMatching(/UPDATE/)
  })
  expect(s.triggers[0].definition).toMatch(/CREATE TRIGGER/i)
  expect(s.referencedBy).toEqual([
    expect.objectContaining({ table: "Order Lines", columns: ["Account Id"], referencedColumns: ["Id"] })
  ])
}

const expectLines = (s: any) => {
  expect(s.foreignKeys).toEqual([
    expect.objectContaining({
      columns: ["Account Id"],
      referencedTable: ACCOUNTS,
      referencedColumns: ["Id"],
      onDelete: "CASCADE"
    })
  ])
  expect(s.columnDetails.find((c: any) => c.name === "note").defaultValue).toMatch(/CHECK \(x\)/)
  expect(s.checks).toEqual([])
  expect(s.referencedBy).toEqual([])
}

/** The page: each part visible, the Key cells, and the DDL copied with Tab then Enter. */
const checkPage = async (ui: UiSession, connection: string, shot?: string) => {
  const { page } = ui
  await page.setViewportSize({ width: 1440, height: 900 })
  await page.context().grantPermissions(["clipboard-read", "clipboard-write"], { origin: ui.ui.origin })
  await page.getByRole("button", { name: connection }).first().click()
  await page.getByRole("complementary", { name: "Tables" }).getByRole("button", { name: /^Customer Accounts/ }).click()
  await page.getByRole("tab", { name: "Structure" }).click()
  const columns = page.getByRole("table", { name: "Columns" })
  await columns.getByRole("row", { name: /credit/ }).waitFor()
  expect(await columns.getByRole("columnheader").allTextContents()).toEqual([
    "Column",
    "Type",
    "Nullable",
    "Default",
    "Key",
    "Comment"
  ])
  expect(await columns.getByRole("row", { name: /^Id\b/ }).textContent()).toContain("primary")
  expect(await columns.getByRole("row", { name: /e"mail/ }).textContent()).toContain("unique")
  expect(await columns.getByRole("row", { name: /status/ }).textContent()).toContain("'new'")
  expect(await page.getByRole("table", { name: "Checks" }).textContent()).toContain("credit ok")
  const triggers = page.getByRole("table", { name: "Triggers" })
  expect(await triggers.getByRole("row", { name: /touch "it"/ }).textContent()).toMatch(/UPDATE/)
  expect(await page.getByRole("table", { name: "Referenced by" }).textContent()).toMatch(/Order Lines.*Account Id.*Id/)
  expect(await page.getByRole("table", { name: "Indexes" }).count()).toBe(1)
  const ddl = page.getByLabel("DDL", { exact: true })
  await ddl.waitFor()
  expect(await ddl.textContent()).toMatch(/CREATE TABLE/i)
  // highlighted: the keyword is in its own styled span
  expect(await ddl.locator("span").filter({ hasText: /^CREATE$/i }).count()).toBeGreaterThan(0)
  await page.getByRole("button", { name: "Reload structure" }).focus()
  await page.keyboard.press("Tab")
  expect(await page.evaluate(() => document.activeElement?.getAttribute("aria-label"))).toBe("Copy DDL")
  await page.keyboard.press("Enter")
  await page.getByRole("status").filter({ hasText: "Copied." }).waitFor()
  const copied = await page.evaluate(() => navigator.clipboard.readText())
  expect(copied).toMatch(/CREATE TABLE/i)
  expect(copied).toContain("credit ok")
  expect(copied).toMatch(/CREATE TRIGGER .touch ""?it""?./i)
  if (shot !== undefined) {
    await screenshot(page, shot)
    await ddl.scrollIntoViewIfNeeded()
    await screenshot(page, `${shot}-ddl`)
  }
  // each table opens in its own tab, on its Data view: show that tab's Structure view
  await page.getByRole("complementary", { name: "Tables" }).getByRole("button", { name: /^Order Lines/ }).click()
  await page.getByRole("tab", { name: "Structure" }).click()
  const fk = page.getByRole("table", { name: "Foreign keys" })
  await fk.waitFor()
  expect(await fk.textContent()).toMatch(/Account Id.*Customer Accounts\(Id\).*CASCADE/)
  expect(await page.getByRole("table", { name: "Columns" }).getByRole("row", { name: /Account Id/ }).textContent())
    .toContain("→ Customer Accounts.Id")
}

describe("structure view on SQLite", () => {
  let opened: Awaited<ReturnType<typeof openWith>>
  beforeAll(async () => {
    const path = join(tempHome(), "shop.db")
    const db = new Database(path)
    db.exec(`
      CREATE TABLE "Customer Accounts" ("Id" INTEGER PRIMARY KEY, "e""mail" TEXT NOT NULL UNIQUE,
        status TEXT DEFAULT 'new' CHECK (status IN ('new', 'active')), credit INTEGER DEFAULT 0,
        CONSTRAINT "credit ok" CHECK (credit >= 0));
      CREATE TABLE "Order Lines" (id INTEGER PRIMARY KEY,
        "Account Id" INTEGER REFERENCES "Customer Accounts"("Id") ON DELETE CASCADE, note TEXT DEFAULT 'CHECK (x)');
      CREATE TRIGGER "touch ""it""" AFTER UPDATE OF status ON "Customer Accounts"
        BEGIN UPDATE "Customer Accounts" SET credit = credit WHERE "Id" = NEW."Id"; END;`)
    db.close()
    opened = await openWith({ name: "Shop (SQLite)", type: "sqlite", path })
  }, 120_000)
  afterAll(() => opened?.ui.close())

  it("the UI API gives defaults, unique and foreign keys with their column pairs, checks (named and not), the trigger and incoming references", async () => {
    const accounts = await opened.structure(ACCOUNTS)
    expectAccounts(accounts)
    expect(accounts.checks).toEqual([{ name: null, expression: "status IN ('new', 'active')" }, {
      name: "credit ok",
      expression: "credit >= 0"
    }])
    expect(accounts.triggers[0]).toMatchObject({ timing: "AFTER", event: "UPDATE OF status" })
    expectLines(await opened.structure("Order Lines"))
  })

  it("the page shows each part and copies the DDL with the keyboard", async () => {
    await checkPage(opened.ui, "Shop (SQLite)")
  }, 60_000)
})

describePostgres("structure view on PostgreSQL", () => {
  let postgres: PostgresServer
  let opened: Awaited<ReturnType<typeof openWith>>
  beforeAll(async () => {
    postgres = await startPostgres()
    await postgres.sql(`
      CREATE TABLE "Customer Accounts" ("Id" serial PRIMARY KEY, "e""mail" text NOT NULL UNIQUE,
        status text DEFAULT 'new' CHECK (status IN ('new', 'active')), credit integer DEFAULT 0 CONSTRAINT "credit ok" CHECK (credit >= 0),
        created timestamptz DEFAULT now());
      COMMENT ON COLUMN "Customer Accounts"."e""mail" IS 'where receipts go';
      CREATE TABLE "Order Lines" (id serial PRIMARY KEY,
        "Account Id" integer CONSTRAINT "lines to account" REFERENCES "Customer Accounts"("Id") ON DELETE CASCADE, note text DEFAULT 'CHECK (x)');
      CREATE FUNCTION keep_credit() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN NEW.credit := greatest(NEW.credit, 0); RETURN NEW; END$$;
      CREATE TRIGGER "touch ""it""" BEFORE INSERT OR UPDATE ON "Customer Accounts" FOR EACH ROW EXECUTE FUNCTION keep_credit();
      GRANT SELECT ON ALL TABLES IN SCHEMA public TO ${postgres.user};`)
    opened = await openWith({
      name: "Shop (PostgreSQL)",
      type: "postgresql",
      host: postgres.host,
      port: postgres.port,
      database: postgres.database,
      user: postgres.user,
      password: postgres.password,
      sslMode: "disable"
    })
  }, 120_000)
  afterAll(async () => {
    await opened?.ui.close()
    await postgres?.stop()
  })

  it("the UI API gives defaults, comments, keys, checks, the trigger with both events and incoming references", async () => {
    const accounts = await opened.structure(ACCOUNTS)
    expectAccounts(accounts)
    expect(accounts.columnDetails.find((c: any) => c.name === EMAIL).comment).toBe("where receipts go")
    expect(accounts.columnDetails.find((c: any) => c.name === "created").defaultValue).toBe("now()")
    expect(accounts.triggers[0]).toMatchObject({ timing: "BEFORE", event: "INSERT OR UPDATE" })
    expect(accounts.triggers[0].definition).toContain("EXECUTE FUNCTION keep_credit()")
    expect(accounts.referencedBy[0].name).toBe("lines to account")
    // the DDL text is complete: the comment and the trigger follow the CREATE TABLE
    expect(accounts.definition).toContain(
      `COMMENT ON COLUMN "public"."Customer Accounts"."e""mail" IS 'where receipts go';`
    )
    expect(accounts.definition).toContain(
      `CREATE TRIGGER "touch ""it""" BEFORE INSERT OR UPDATE ON "Customer Accounts" FOR EACH ROW EXECUTE FUNCTION keep_credit();`
    )
    expectLines(await opened.structure("Order Lines"))
  })

  it("the page shows each part, the comment included, and copies the DDL with the keyboard", async () => {
    await checkPage(opened.ui, "Shop (PostgreSQL)", "structure-after")
  }, 60_000)
})

describeMariadb("structure view on MariaDB", () => {
  let mariadb: MariadbServer
  let opened: Awaited<ReturnType<typeof openWith>>
  beforeAll(async () => {
    mariadb = await startMariadb()
    await mariadb.admin().query(`
      USE \`${mariadb.database}\`;
      CREATE TABLE \`Customer Accounts\` (\`Id\` INT PRIMARY KEY, \`e"mail\` VARCHAR(80) NOT NULL UNIQUE COMMENT 'where receipts go',
        status VARCHAR(10) DEFAULT 'new' CHECK (status IN ('new', 'active')), credit INT DEFAULT 0, CONSTRAINT \`credit ok\` CHECK (credit >= 0));
      CREATE TABLE \`Order Lines\` (id INT PRIMARY KEY, \`Account Id\` INT, note VARCHAR(20) DEFAULT 'CHECK (x)',
        CONSTRAINT \`lines to account\` FOREIGN KEY (\`Account Id\`) REFERENCES \`Customer Accounts\` (\`Id\`) ON DELETE CASCADE);
      CREATE TRIGGER \`touch "it"\` BEFORE UPDATE ON \`Customer Accounts\` FOR EACH ROW SET NEW.credit = GREATEST(NEW.credit, 0);`)
    opened = await openWith({
      name: "Shop (MariaDB)",
      type: "mysql",
      host: mariadb.host,
      port: mariadb.port,
      database: mariadb.database,
      user: mariadb.user,
      password: mariadb.password,
      sslMode: "disabled"
    })
  }, 120_000)
  afterAll(async () => {
    await opened?.ui.close()
    await mariadb?.stop()
  }, 60_000)

  it("the UI API gives defaults, comments, keys, checks, the trigger and incoming references", async () => {
    const accounts = await opened.structure(ACCOUNTS)
    expectAccounts(accounts)
    expect(accounts.columnDetails.find((c: any) => c.name === EMAIL).comment).toBe("where receipts go")
    expect(accounts.triggers[0]).toMatchObject({ timing: "BEFORE", event: "UPDATE" })
    expect(accounts.triggers[0].definition).toContain("GREATEST(NEW.credit, 0)")
    expect(accounts.referencedBy[0].name).toBe("lines to account")
    // SHOW CREATE TABLE, closed with a semicolon, then the trigger it leaves out
    expect(accounts.definition).toMatch(
      /^CREATE TABLE `Customer Accounts`[\s\S]*\) ENGINE=[^\n]*;\nCREATE TRIGGER `touch "it"` BEFORE UPDATE ON `Customer Accounts` FOR EACH ROW\nSET NEW\.credit = GREATEST\(NEW\.credit, 0\);$/
    )
    expectLines(await opened.structure("Order Lines"))
  })

  it("the page shows each part and copies the DDL with the keyboard", async () => {
    await checkPage(opened.ui, "Shop (MariaDB)")
  }, 60_000)
})
