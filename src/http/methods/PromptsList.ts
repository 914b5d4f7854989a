import { Effect } from "effect"
import { HostCatalog } from "../../services/resources/HostCatalog.ts"
import { promptListing, PROMPTS } from "../../services/resources/PromptCatalog.ts"
import { fixedListMethod } from "./FixedList.ts"

/**
 * Wire contract §4.3–4.5, D-49: the same five prompts for every caller (3600000 ms,
 * `public`), then any an embedding host adds.
 */
export const PromptsListMethod = Effect.map(
  HostCatalog,
  (host) =>
    fixedListMethod("prompts/list", "prompts", [
      ...PROMPTS.map(promptListing),
      ...host.prompts.map((prompt) => prompt.listing)
    ])
)
