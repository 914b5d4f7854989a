import pg from "pg"

/** The SQL names people read for node-postgres' built-in type names (its keys are the catalog's, e.g. INT4). */
const READABLE: Readonly<Record<string, string>> = {
  int2: "smallint",
  int4: "integer",
  int8: "bigint",
  float4: "real",
  float8: "double precision",
  bool: "boolean",
  bpchar: "char",
  varchar: "varchar",
  timestamptz: "timestamptz",
  timetz: "timetz"
}

/** Array types node-postgres does not list: element OIDs' arrays, as `element[]`. */
const ARRAYS: Readonly<Record<number, string>> = {
  1000: "boolean[]",
  1005: "smallint[]",
  1007: "integer[]",
  1016: "bigint[]",
  1021: "real[]",
  1022: "double precision[]",
  1231: "numeric[]",
  1009: "text[]",
  1015: "varchar[]",
  1182: "date[]",
  1115: "timestamp[]",
  1185: "timestamptz[]",
  2951: "uuid[]",
  199: "json[]",
  3807: "jsonb[]"
}

const BY_OID = new Map<number, string>(
  Object.entries(pg.types.builtins).map(([name, oid]) => [oid, READABLE[name.toLowerCase()] ?? name.toLowerCase()])
)

/** A RowDescription field's type OID as a type name for the console's headers; "" for a type dbdesk does not know by OID (a user's enum or domain). */
export const pgTypeName = (oid: number): string => BY_OID.get(oid) ?? ARRAYS[oid] ?? ""
