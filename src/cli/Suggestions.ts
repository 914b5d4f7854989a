/**
 * The nearest valid word for a mistyped command or flag (D-79: one plain line that names it).
 * Levenshtein distance, accepted up to a third of the word's length (at least 2), so `lst` finds
 * `list` and `frobnicate` finds nothing rather than something unrelated.
 */
export const editDistance = (a: string, b: string): number => {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index)
  for (let i = 1; i <= a.length; i++) {
    const current = [i]
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    previous = current
  }
  return previous[b.length]!
}

export const nearest = (typed: string, candidates: ReadonlyArray<string>): string | undefined => {
  const limit = Math.max(2, Math.floor(typed.length / 3))
  let best: { readonly word: string; readonly distance: number } | undefined
  for (const word of candidates) {
    const distance = word.startsWith(typed) && typed.length >= 2
      ? 0.5
      : editDistance(typed.toLowerCase(), word.toLowerCase())
    if (distance <= limit && (best === undefined || distance < best.distance)) best = { word, distance }
  }
  return best?.word
}

/** A node of the command tree: its subcommands and the flags it takes. */
export interface CommandNode {
  readonly subcommands: ReadonlyMap<string, CommandNode>
  readonly flags: ReadonlyArray<string>
}

/**
 * Explains why a command line does not name a command: the first word that is neither a
 * subcommand nor an option, or an unknown option, with the nearest valid spelling.
 */
export const explainUsage = (
  root: CommandNode,
  program: string,
  args: ReadonlyArray<string>,
  unknownOption?: string
): string => {
  let node = root
  const path: Array<string> = [program]
  for (let index = 0; index < args.length; index++) {
    const word = args[index]!
    if (word.startsWith("-")) continue
    const previous = index > 0 ? args[index - 1]! : ""
    if (node.subcommands.get(word) === undefined && previous.startsWith("--") && !previous.includes("=")) continue
    const next = node.subcommands.get(word)
    if (next !== undefined) {
      node = next
      path.push(word)
      continue
    }
    if (node.subcommands.size === 0) break
    const names = [...node.subcommands.keys()]
    const guess = nearest(word, names)
    const command = path.join(" ")
    return guess === undefined
      ? `${command}: unknown command ${JSON.stringify(word)}; the commands are ${names.join(", ")} (${command} --help)`
      : `${command}: unknown command ${JSON.stringify(word)}; did you mean "${command} ${guess}"? (${command} --help)`
  }
  const command = path.join(" ")
  if (unknownOption !== undefined) {
    const flag = unknownOption.split("=")[0]!
    const guess = flag.startsWith("-") ? nearest(flag, node.flags) : undefined
    const what = flag.startsWith("-") ? `option ${flag}` : `argument ${JSON.stringify(flag)}`
    return guess === undefined
      ? `${command}: unknown ${what} (${command} --help)`
      : `${command}: unknown ${what}; did you mean ${guess}? (${command} --help)`
  }
  return node.subcommands.size > 0
    ? `${command}: needs a command: ${[...node.subcommands.keys()].join(", ")} (${command} --help)`
    : `${command}: check the options (${command} --help)`
}
