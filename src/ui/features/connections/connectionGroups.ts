import type { UiConnection } from "../../../domain/UiSchemas.ts"

/** Where a connection is, as the list shows it: its file, or host:port/database. */
export const whereOf = (c: UiConnection): string =>
  c.path ?? `${c.host ?? ""}:${c.port ?? ""}${c.database === undefined ? "" : `/${c.database}`}`

/** The search box matches every word typed, case-insensitively, in the name, group, type or where a connection is. */
export const matchesSearch = (c: UiConnection, typeLabel: string, query: string): boolean => {
  const haystack = [c.name, c.group ?? "", typeLabel, whereOf(c)].join(" ").toLowerCase()
  return query.toLowerCase().split(/\s+/).filter((word) => word !== "").every((word) => haystack.includes(word))
}

/**
 * D-103: the list grouped by each connection's group, groups in alphabetical order, the ungrouped ones last (under
 * `undefined`); within a group the saved order is kept.
 */
export const groupConnections = (
  connections: ReadonlyArray<UiConnection>
): ReadonlyArray<readonly [string | undefined, ReadonlyArray<UiConnection>]> => {
  const groups = new Map<string | undefined, Array<UiConnection>>()
  for (const c of connections) {
    const key = c.group === undefined || c.group === "" ? undefined : c.group
    groups.set(key, [...(groups.get(key) ?? []), c])
  }
  return [...groups.entries()].sort(([a], [b]) => (a === undefined ? 1 : b === undefined ? -1 : a.localeCompare(b)))
}
