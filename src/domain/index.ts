/**
 * `dbdesk/domain` (D-77): the Schemas and error classes shared by the server, the UI and a host's own UI. No
 * Node built-in: a browser bundle may import it. The statement classifier's lexer and scanners, and the answer-size
 * budget, stay private.
 */
export * from "./Activity.ts"
export * from "./Approval.ts"
export * from "./Connection.ts"
export * from "./Json.ts"
export * from "./JsonRpc.ts"
export { anonymousPrincipal, type Principal, type Scope, scopesForLevel } from "./Principal.ts"
export * from "./ProtocolErrors.ts"
export * from "./ProtocolVersions.ts"
export * from "./RequestEnvelope.ts"
export * from "./ResultSet.ts"
export * from "./SearchAdmin.ts"
export * from "./SearchConnection.ts"
export * from "./SearchErrors.ts"
export * from "./SearchFilter.ts"
export * from "./SearchGrid.ts"
export * from "./ServerInfo.ts"
export * from "./Settings.ts"
export {
  BrowseFilter,
  BrowseQuery,
  FilterOperator as BrowseOperator,
  FilterValue,
  ScalarValue,
  SortKey
} from "./SqlBrowse.ts"
export * from "./SqlTable.ts"
export * from "./StatementClassifier.ts"
export * from "./Token.ts"
export * from "./ToolErrors.ts"
export * from "./UiApi.ts"
export * from "./UiSchemas.ts"
