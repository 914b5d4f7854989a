// D-64 on PostgreSQL: the catalog facts for the names a statement uses, read in the statement's own round trip
// (one more step before it, PgPipeline.ts), so the answer is decided from the origins RowDescription reports (table
// OID and column number) before its first row is kept.
import pg from "pg"
import { type AnswerVerdict, decideAnswer, type OutputSource, withheldError } from "../../../domain/AnswerGate.ts"
import { type CatalogEdge, type CatalogGuard, type CatalogObject, guardCatalog } from "../../../domain/GuardCatalog.ts"
import { SECRET_CATALOGS } from "../../../domain/SecretCatalogs.ts"
import { secretCatalogOf } from "../../../domain/TableReference.ts"
import { type AnswerGuard, DriverError, PolicyRefusal } from "../Driver.ts"
import { catalogValueOf } from "./PgCells.ts"
import type { FieldInfo, RowSink, SinkVerdict, Step } from "./PgPipeline.ts"
import type { ResultCollector } from "./PgResults.ts"

/** OIDs below this are initdb's (system catalogs and views): their definitions are known and not expanded. */
const FIRST_USER_OID = 16384
const RELATION_KINDS = "('r', 'v', 'm', 'f', 'p')"
const USER_ROUTINE = "p.pronamespace NOT IN ('pg_catalog'::regnamespace, 'information_schema'::regnamespace)"
const IDENTIFIERS = "'[A-Za-z_][A-Za-z0-9_$]*'"
/**
 * A function's SQL-standard body (`BEGIN ATOMIC … END`, PostgreSQL 14+), stored parsed like a view's query with an empty
 * `prosrc`: read through the row's JSON so the lookup still runs on servers without the column.
 */
const SQL_BODY = "coalesce(to_jsonb(s) ->> 'prosqlbody', '')"
/** What a view or routine calls is followed into user routines, and into the built-in functions that are secret catalogs. */
const FOLLOWED_ROUTINE = `(${USER_ROUTINE} OR p.proname IN (${
  SECRET_CATALOGS.postgresql.map((catalog) => `'${catalog.name}'`).join(", ")
}))`

/**
 * The relations and user routines named in the statement, then (for objects created after initdb) what each reads:
 * a view's relations and functions from its rule's stored query (`:relid`, `:funcid`; pg_depend does not record
 * dependencies on system catalogs), a routine's from the names in its source text or from its SQL-standard body's
 * stored query. One row per object.
 */
export const LOOKUP_SQL = `WITH RECURSIVE obj(key, kind, oid, parent, cols) AS (
    SELECT 'r' || c.oid, 'r', c.oid, '', NULL::int4[] FROM pg_class c WHERE c.relname = ANY($1::text[]) AND c.relkind IN ${RELATION_KINDS}
  UNION
    SELECT 'f' || p.oid, 'f', p.oid, '', NULL::int4[] FROM pg_proc p WHERE p.proname = ANY($1::text[]) AND ${USER_ROUTINE}
  UNION
    SELECT x.kind || x.oid, x.kind, x.oid, o.key, x.cols FROM obj o CROSS JOIN LATERAL (
        SELECT 'r'::text AS kind, m[1]::oid AS oid, (SELECT array_agg(d.refobjsubid::int4) FROM pg_depend d
            WHERE d.classid = 'pg_rewrite'::regclass AND d.objid = w.oid AND d.refclassid = 'pg_class'::regclass AND d.refobjid = m[1]::oid) AS cols
          FROM pg_rewrite w, regexp_matches(w.ev_action::text, ':relid (\\d+)', 'g') m
         WHERE o.kind = 'r' AND o.oid >= ${FIRST_USER_OID} AND w.ev_class = o.oid AND m[1]::oid <> o.oid
      UNION ALL
        SELECT 'f', p.oid, NULL FROM pg_rewrite w, regexp_matches(w.ev_action::text, ':funcid (\\d+)', 'g') m, pg_proc p
         WHERE o.kind = 'r' AND o.oid >= ${FIRST_USER_OID} AND w.ev_class = o.oid AND p.oid = m[1]::oid AND ${FOLLOWED_ROUTINE}
      UNION ALL
        SELECT 'r', c.oid, NULL FROM pg_proc s, regexp_matches(s.prosrc, ${IDENTIFIERS}, 'g') m, pg_class c
         WHERE o.kind = 'f' AND s.oid = o.oid AND c.relname IN (m[1], lower(m[1])) AND c.relkind IN ${RELATION_KINDS}
      UNION ALL
        SELECT 'f', p.oid, NULL FROM pg_proc s, regexp_matches(s.prosrc, ${IDENTIFIERS}, 'g') m, pg_proc p
         WHERE o.kind = 'f' AND s.oid = o.oid AND p.proname IN (m[1], lower(m[1])) AND p.oid <> o.oid AND ${FOLLOWED_ROUTINE}
      UNION ALL
        SELECT 'r', m[1]::oid, NULL FROM pg_proc s, regexp_matches(${SQL_BODY}, ':relid (\\d+)', 'g') m
         WHERE o.kind = 'f' AND s.oid = o.oid
      UNION ALL
        SELECT 'f', p.oid, NULL FROM pg_proc s, regexp_matches(${SQL_BODY}, ':funcid (\\d+)', 'g') m, pg_proc p
         WHERE o.kind = 'f' AND s.oid = o.oid AND p.oid = m[1]::oid AND p.oid <> o.oid AND ${FOLLOWED_ROUTINE}
    ) x
)
SELECT o.key, o.kind, o.named, x.schema, x.name, x.relkind, x.runs_text,
  (SELECT json_agg(json_build_array(a.attnum, a.attname)) FROM pg_attribute a WHERE o.kind = 'r' AND a.attrelid = o.oid AND a.attnum > 0 AND NOT a.attisdropped) AS columns,
  (SELECT jsonb_agg(DISTINCT jsonb_build_array(e.key, e.cols))::json FROM obj e WHERE e.parent = o.key) AS reads
FROM (SELECT key, kind, oid, bool_or(parent = '') AS named FROM obj GROUP BY key, kind, oid) o
CROSS JOIN LATERAL (
    SELECT n.nspname AS schema, c.relname AS name, c.relkind::text AS relkind, false AS runs_text
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE o.kind = 'r' AND c.oid = o.oid
  UNION ALL
    SELECT n.nspname, p.proname, NULL, (l.lanname NOT IN ('sql', 'c', 'internal') AND (l.lanname <> 'plpgsql' OR p.prosrc ~* '\\mexecute\\M'))
      FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace JOIN pg_language l ON l.oid = p.prolang WHERE o.kind = 'f' AND p.oid = o.oid
) x`

/**
 * With secret catalogs closed and no masking rules, the answer is all or nothing, so a cheap probe goes first in the
 * statement's round trip: only when the statement names a view, materialized view or routine created after initdb (the
 * objects that could read a secret catalog under another name) does the full lookup follow, before the answer is given.
 */
export const PROBE_SQL =
  `SELECT EXISTS (SELECT 1 FROM pg_class c WHERE c.relname = ANY($1::text[]) AND c.relkind IN ('v', 'm') AND c.oid >= ${FIRST_USER_OID})
  OR EXISTS (SELECT 1 FROM pg_proc p WHERE p.proname = ANY($1::text[]) AND ${USER_ROUTINE}) AS involved`

/** One row of the lookup, kept until the statement's RowDescription (edges name columns by number). */
interface LookupRow {
  readonly key: string
  readonly named: boolean
  readonly relation: { readonly schema: string; readonly name: string }
  readonly kind: CatalogObject["kind"]
  /** Column names by attribute number. */
  readonly attributes: ReadonlyMap<number, string>
  readonly reads: ReadonlyArray<readonly [string, ReadonlyArray<number> | null]>
  readonly runsText: boolean
}

/** Collects the lookup's rows, then decides on the statement's RowDescription. */
export class PgGuardLookup implements RowSink {
  private fieldsOf: ReadonlyArray<FieldInfo> = []
  private readonly found = new Map<string, LookupRow>()
  private catalog: CatalogGuard | undefined
  /** "probe" until a probe found a view or routine; "full" from the start when masking rules apply. */
  private mode: "probe" | "full"
  private involved = false

  constructor(readonly guard: AnswerGuard) {
    this.mode = guard.policy.rules.length > 0 ? "full" : "probe"
  }

  private get names(): string {
    return `{${this.guard.facts.names.map((name) => `"${name.replace(/["\\]/g, "\\$&")}"`).join(",")}}`
  }

  /**
   * The steps before the statement in its round trip. The full lookup's estimates pass jit_above_cost, and compiling
   * it would cost ~200 ms: JIT is off for the lookup only (the steps share the call's transaction).
   */
  get steps(): ReadonlyArray<Step> {
    if (this.mode === "probe") return [{ text: PROBE_SQL, values: [this.names], rows: { limit: 0, sink: this } }]
    return [
      { text: "SET LOCAL jit = off" },
      { text: LOOKUP_SQL, values: [this.names], rows: { limit: 0, sink: this } },
      { text: "SET LOCAL jit TO DEFAULT" }
    ]
  }

  /** After a probe that found a view or routine: the full lookup to run before the answer is given (else undefined). */
  get confirmation(): ReadonlyArray<Step> | undefined {
    if (this.mode !== "probe" || !this.involved) return undefined
    this.mode = "full"
    return this.steps
  }

  fields(fields: ReadonlyArray<FieldInfo>): void {
    this.fieldsOf = fields
  }

  row(values: ReadonlyArray<string | null>): SinkVerdict {
    if (this.mode === "probe") {
      this.involved = values[0] === "t"
      return "more"
    }
    const entry: Record<string, unknown> = {}
    this.fieldsOf.forEach((field, index) => (entry[field.name] = catalogValueOf(values[index] ?? null, field.typeOid)))
    const relkind = entry["relkind"]
    const key = String(entry["key"])
    this.found.set(key, {
      key,
      named: entry["named"] === true,
      relation: { schema: String(entry["schema"]), name: String(entry["name"]) },
      kind: entry["kind"] === "f"
        ? "routine"
        : relkind === "r" || relkind === "p" || relkind === "f"
        ? "table"
        : "view",
      attributes: new Map((entry["columns"] ?? []) as ReadonlyArray<readonly [number, string]>),
      reads: (entry["reads"] ?? []) as LookupRow["reads"],
      runsText: entry["runs_text"] === true
    })
    return "more"
  }

  /** An edge names the columns used when pg_depend recorded them (not for system catalogs); 0 is the whole row. */
  private edge([key, numbers]: readonly [string, ReadonlyArray<number> | null]): CatalogEdge {
    const attributes = this.found.get(key)?.attributes
    if (numbers === null || attributes === undefined || numbers.includes(0)) return { key }
    return { key, columns: numbers.flatMap((number) => attributes.get(number) ?? []) }
  }

  private get guarded(): CatalogGuard {
    if (this.catalog !== undefined) return this.catalog
    const rows = [...this.found.values()]
    const objects = rows.map((row): CatalogObject => ({
      key: row.key,
      relation: row.relation,
      kind: row.kind,
      columns: [...row.attributes.values()],
      reads: row.reads.map((edge) => this.edge(edge)),
      secret: secretCatalogOf("postgresql", row.relation),
      runsText: row.runsText
    }))
    this.catalog = guardCatalog(
      objects,
      rows.filter((row) => row.named).map((row) => row.key),
      this.guard.policy,
      this.guard.facts.compound
    )
    return this.catalog
  }

  /** Where a RowDescription field's values come from: a table column, or untraced (computed, or a guarded view). */
  private sourceOf(field: FieldInfo): OutputSource {
    if (field.tableOid === 0) return { kind: "untraced" }
    const key = `r${field.tableOid}`
    const entry = this.found.get(key)
    const column = entry?.attributes.get(field.column)
    if (entry === undefined || column === undefined) return { kind: "untraced" }
    const reached = this.guarded.reached(key)
    if (reached.secret !== undefined || reached.ruled !== undefined) return { kind: "untraced" }
    return { kind: "column", relation: entry.relation, column }
  }

  /**
   * Every origin is a relation of the lookup, so a secret catalog reported as an origin is among the reads. While only
   * probed, every column is kept: nothing is masked without rules, and a refusal comes with the confirmation.
   */
  decide(fields: ReadonlyArray<FieldInfo>): AnswerVerdict | undefined {
    if (this.mode === "probe") return undefined
    return decideAnswer(
      fields.map((field) => ({ name: field.name, source: this.sourceOf(field) })),
      this.guarded.reads,
      this.guard.policy
    )
  }

  /** Whether the statement reads anything a guard covers (its later errors may quote guarded values). */
  get readsGuarded(): boolean {
    if (this.mode === "probe") return this.involved
    const reads = this.guarded.reads
    return (this.guard.policy.secretCatalogs === "closed" && reads.secret.length > 0) || reads.ruled.length > 0
  }
}

/** Session-level failures (connection, shutdown, cancel) keep their own meaning; see PostgresErrors.ts. */
const SESSION_OR_CANCEL = /^(08|28|53300|57P0[1-4]|57014)/

/**
 * What a failed guarded statement answers: the refusal when the answer was refused before the error; a statement
 * error raised while reading rows of guarded data with its message withheld; anything else as it was.
 */
export const guardedFailure = (
  error: unknown,
  collector: ResultCollector,
  lookup: PgGuardLookup | undefined
): unknown => {
  if (lookup === undefined) return error
  if (collector.verdict?.kind === "refuse") return new PolicyRefusal({ refusal: collector.verdict.refusal })
  if (
    !(error instanceof pg.DatabaseError) || SESSION_OR_CANCEL.test(error.code ?? "") || !collector.described ||
    !lookup.readsGuarded
  ) return error
  return new DriverError({ message: withheldError(error.code) })
}
