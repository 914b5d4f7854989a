/** The wire's column type codes (MySQL's enum_field_types) as the SQL type names people read. */
const NAMES: Readonly<Record<number, string>> = {
  0: "decimal",
  1: "tinyint",
  2: "smallint",
  3: "int",
  4: "float",
  5: "double",
  7: "timestamp",
  8: "bigint",
  9: "mediumint",
  10: "date",
  11: "time",
  12: "datetime",
  13: "year",
  16: "bit",
  242: "vector",
  245: "json",
  246: "decimal",
  247: "enum",
  248: "set",
  255: "geometry"
}

/** Character set 63 is `binary`: the same wire type is a BLOB or a TEXT, a VARBINARY or a VARCHAR by it. */
const BINARY = 63

/**
 * A result field's type for the console's headers, from mysql2's field packet: MariaDB's extended type name when it
 * sends one (`uuid`, `inet6`, `json`), else the wire type's name; "" for a code dbdesk does not know.
 */
export const mysqlTypeName = (
  field: {
    readonly columnType?: number | undefined
    readonly type?: number | undefined
    readonly characterSet?: number | undefined
    readonly extendedTypeName?: string | undefined
  }
): string => {
  if (field.extendedTypeName !== undefined && field.extendedTypeName !== "") return field.extendedTypeName
  const code = field.columnType ?? field.type
  if (code === undefined) return ""
  const binary = field.characterSet === BINARY
  if (code >= 249 && code <= 252) return binary ? "blob" : "text"
  if (code === 15 || code === 253) return binary ? "varbinary" : "varchar"
  if (code === 254) return binary ? "binary" : "char"
  return NAMES[code] ?? ""
}
