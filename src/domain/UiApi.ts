import { HttpApi, HttpApiEndpoint, HttpApiGroup } from "@effect/platform"
import { Schema } from "effect"
import { ConnectedClient } from "./Activity.ts"
import { PendingApproval } from "./Approval.ts"
import { CuratedToolDefinition } from "./CuratedTool.ts"
import { PolicyExplainRequest, PolicyExplanation } from "./PolicyExplanation.ts"
import { SearchDashboard, SearchKeyRecord, NewSearchKey } from "./SearchAdmin.ts"
import { Settings } from "./Settings.ts"
import { UiCatalog, UiCatalogObjects } from "./UiCatalog.ts"
import { UiExportFolder, UiExportRequest, UiExportStatus } from "./UiExport.ts"
import {
  UiAnswer,
  UiBrowseRequest,
  UiColumn,
  UiConnection,
  UiConnectionInput,
  UiConsoleRequest,
  UiConsoleResult,
  UiCreatedToken,
  UiDriver,
  UiEditRequest,
  UiEditResult,
  UiError,
  UiNewToken,
  UiNodeHealth,
  UiNotFound,
  UiPage,
  UiSettingsPatch,
  UiStatus,
  UiStructure,
  UiTableList,
  UiToken
} from "./UiSchemas.ts"
import { UiConnectionProbe } from "./UiSchemas.ts"
import {
  UiBridgeTest,
  UiChainCheck,
  UiClientSetup,
  UiHistoryEntry,
  UiNewSavedQuery,
  UiPairingApproval,
  UiPairingCode,
  UiSavedQuery,
  UiActivityRow,
  UiContinuation,
  UiConsoleTabs,
  UiSqlApply,
  UiSqlApplyResult,
  UiSqlEdits,
  UiSqlPreview
} from "./UiWorkSchemas.ts"

const IdPath = Schema.Struct({ id: Schema.String })
const TablePath = Schema.Struct({ id: Schema.String, table: Schema.String })
/**
 * D-98: the database of the connection's server a call reads (a tab's own, chosen in the switcher), as the MCP tools'
 * `database` argument; absent: the connection's own database.
 */
const DatabaseParams = Schema.Struct({ database: Schema.optional(Schema.String) })

const server = HttpApiGroup.make("server")
  .add(HttpApiEndpoint.get("status", "/status").addSuccess(UiStatus))
  .add(HttpApiEndpoint.get("settings", "/settings").addSuccess(Settings))
  .add(HttpApiEndpoint.patch("updateSettings", "/settings").setPayload(UiSettingsPatch).addSuccess(Settings))

const connections = HttpApiGroup.make("connections")
  .add(HttpApiEndpoint.get("list", "/connections").addSuccess(Schema.Array(UiConnection)))
  .add(HttpApiEndpoint.post("add", "/connections").setPayload(UiConnectionInput).addSuccess(UiConnection))
  .add(
    HttpApiEndpoint.put("update", "/connections/:id").setPath(IdPath).setPayload(UiConnectionInput).addSuccess(
      UiConnection
    )
  )
  .add(HttpApiEndpoint.del("remove", "/connections/:id").setPath(IdPath))
  .add(
    HttpApiEndpoint.get("test", "/connections/:id/status").setPath(IdPath).addSuccess(
      Schema.Struct({ ok: Schema.Boolean, message: Schema.String })
    )
  )
  .add(
    HttpApiEndpoint.post("testInput", "/connections/test").setPayload(UiConnectionProbe).addSuccess(
      Schema.Struct({ ok: Schema.Boolean, message: Schema.String })
    )
  )
  .add(HttpApiEndpoint.get("drivers", "/drivers").addSuccess(Schema.Array(UiDriver)))
  .add(
    HttpApiEndpoint.post("enableDriver", "/drivers/:type/enable").setPath(Schema.Struct({ type: Schema.String }))
      .addSuccess(Schema.Array(UiDriver))
  )

const browse = HttpApiGroup.make("browse")
  .add(
    HttpApiEndpoint.get("tables", "/connections/:id/tables").setPath(IdPath).setUrlParams(DatabaseParams).addSuccess(
      UiTableList
    )
  )
  .add(
    HttpApiEndpoint.get("structure", "/connections/:id/tables/:table/structure").setPath(TablePath).setUrlParams(
      DatabaseParams
    ).addSuccess(UiStructure)
  )
  .add(
    HttpApiEndpoint.post("rows", "/connections/:id/tables/:table/rows").setPath(TablePath).setUrlParams(DatabaseParams)
      .setPayload(UiBrowseRequest).addSuccess(UiPage)
  )
  .add(
    HttpApiEndpoint.post("save", "/connections/:id/tables/:table/edits").setPath(TablePath).setPayload(UiEditRequest)
      .addSuccess(UiEditResult)
  )
  .add(
    HttpApiEndpoint.post("console", "/connections/:id/console").setPath(IdPath).setUrlParams(DatabaseParams).setPayload(
      UiConsoleRequest
    ).addSuccess(UiConsoleResult)
  )
  .add(
    HttpApiEndpoint.post("cancelConsole", "/connections/:id/console/:runId/cancel").setPath(
      Schema.Struct({ id: Schema.String, runId: Schema.String })
    )
      .addSuccess(Schema.Struct({ cancelled: Schema.Number }))
  )
  .add(
    HttpApiEndpoint.post("sqlPreview", "/connections/:id/tables/:table/sql-edits/preview").setPath(TablePath)
      .setUrlParams(DatabaseParams).setPayload(UiSqlEdits).addSuccess(UiSqlPreview)
  )
  .add(
    HttpApiEndpoint.post("sqlApply", "/connections/:id/tables/:table/sql-edits/apply").setPath(TablePath).setUrlParams(
      DatabaseParams
    ).setPayload(UiSqlApply).addSuccess(UiSqlApplyResult)
  )
  .add(
    HttpApiEndpoint.get("history", "/connections/:id/history").setPath(IdPath)
      .setUrlParams(
        Schema.Struct({ limit: Schema.optional(Schema.NumberFromString), search: Schema.optional(Schema.String) })
      )
      .addSuccess(Schema.Array(UiHistoryEntry))
  )

const search = HttpApiGroup.make("search")
  .add(HttpApiEndpoint.get("keys", "/connections/:id/keys").setPath(IdPath).addSuccess(Schema.Array(SearchKeyRecord)))
  .add(
    HttpApiEndpoint.post("createKey", "/connections/:id/keys").setPath(IdPath).setPayload(NewSearchKey)
      .addSuccess(Schema.Struct({ key: SearchKeyRecord, value: Schema.String }))
  )
  .add(
    HttpApiEndpoint.del("deleteKey", "/connections/:id/keys/:keyId").setPath(
      Schema.Struct({ id: Schema.String, keyId: Schema.NumberFromString })
    )
  )
  .add(HttpApiEndpoint.get("dashboard", "/connections/:id/dashboard").setPath(IdPath).addSuccess(SearchDashboard))

const mcp = HttpApiGroup.make("mcp")
  .add(
    HttpApiEndpoint.get("tokens", "/tokens").setUrlParams(
      Schema.Struct({ all: Schema.optional(Schema.Literal("true", "false")) })
    ).addSuccess(Schema.Array(UiToken))
  )
  .add(HttpApiEndpoint.post("createToken", "/tokens").setPayload(UiNewToken).addSuccess(UiCreatedToken))
  .add(HttpApiEndpoint.del("revokeToken", "/tokens/:id").setPath(IdPath))
  .add(HttpApiEndpoint.get("clients", "/clients").addSuccess(Schema.Array(ConnectedClient)))
  .add(HttpApiEndpoint.post("disconnect", "/clients/:id/disconnect").setPath(IdPath))
  .add(
    HttpApiEndpoint.get("activity", "/activity").setUrlParams(Schema.Struct({
      category: Schema.optional(Schema.String),
      tokenId: Schema.optional(Schema.String),
      client: Schema.optional(Schema.String),
      since: Schema.optional(Schema.String),
      until: Schema.optional(Schema.String),
      limit: Schema.optional(Schema.NumberFromString)
    })).addSuccess(Schema.Array(UiActivityRow))
  )
  // D-93: the open continued reads (fetch_more handles), each closable.
  .add(HttpApiEndpoint.get("continuations", "/continuations").addSuccess(Schema.Array(UiContinuation)))
  .add(
    HttpApiEndpoint.del("closeContinuation", "/continuations/:id").setPath(IdPath).addSuccess(
      Schema.Struct({ closed: Schema.Boolean })
    )
  )
  .add(HttpApiEndpoint.get("approvals", "/approvals").addSuccess(Schema.Array(PendingApproval)))
  .add(
    HttpApiEndpoint.post("answer", "/approvals/:id").setPath(IdPath).setPayload(UiAnswer).addSuccess(
      Schema.Struct({ answered: Schema.Boolean })
    )
  )
  // Curated tools (D-90): the tools of tools.json and why the file is not in force, if it is not; disable or enable one.
  .add(
    HttpApiEndpoint.get("curatedTools", "/curated-tools")
      .addSuccess(Schema.Struct({ tools: Schema.Array(CuratedToolDefinition), problem: Schema.NullOr(Schema.String) }))
  )
  .add(
    HttpApiEndpoint.post("setCuratedToolDisabled", "/curated-tools/:name/disabled")
      .setPath(Schema.Struct({ name: Schema.String })).setPayload(Schema.Struct({ disabled: Schema.Boolean }))
  )
  // Save a tool (the console's Save dialog, the panel's Edit): `replacing` names the tool it replaces, null for a new one.
  .add(
    HttpApiEndpoint.post("saveCuratedTool", "/curated-tools")
      .setPayload(Schema.Struct({ tool: CuratedToolDefinition, replacing: Schema.NullOr(Schema.String) }))
      .addSuccess(Schema.Struct({ message: Schema.String }))
  )
  .add(
    HttpApiEndpoint.post("testCuratedTool", "/curated-tools/:name/test")
      .setPath(Schema.Struct({ name: Schema.String })).setPayload(
        Schema.Struct({ arguments: Schema.Record({ key: Schema.String, value: Schema.Unknown }) })
      )
      .addSuccess(
        Schema.Struct({
          columns: Schema.Array(Schema.String),
          rows: Schema.Array(Schema.Array(Schema.Unknown)),
          note: Schema.NullOr(Schema.String)
        })
      )
  )

/** Saved console queries, the "Connect a client" tab, pairing, plugins and the chain check (D-55). */
const work = HttpApiGroup.make("work")
  .add(HttpApiEndpoint.get("savedQueries", "/saved-queries").addSuccess(Schema.Array(UiSavedQuery)))
  .add(HttpApiEndpoint.post("saveQuery", "/saved-queries").setPayload(UiNewSavedQuery).addSuccess(UiSavedQuery))
  .add(HttpApiEndpoint.del("deleteQuery", "/saved-queries/:id").setPath(IdPath))
  .add(HttpApiEndpoint.get("clientSetup", "/client-setup").addSuccess(UiClientSetup))
  .add(HttpApiEndpoint.post("testBridge", "/client-setup/test").addSuccess(UiBridgeTest))
  .add(
    HttpApiEndpoint.post("approvePairing", "/pairing/approve").setPayload(UiPairingApproval).addSuccess(UiPairingCode)
  )
  .add(
    HttpApiEndpoint.post("disableDriver", "/drivers/:type/disable").setPath(Schema.Struct({ type: Schema.String }))
      .addSuccess(Schema.Array(UiDriver))
  )
  .add(HttpApiEndpoint.post("verifyChain", "/activity/verify").addSuccess(UiChainCheck))
  .add(HttpApiEndpoint.get("consoleTabs", "/connections/:id/console-tabs").setPath(IdPath).addSuccess(UiConsoleTabs))
  .add(
    HttpApiEndpoint.put("saveConsoleTabs", "/connections/:id/console-tabs").setPath(IdPath).setPayload(UiConsoleTabs)
  )

/** D-87: the policy explainer (item 3), a grid page as its console request (item 2), a cluster's node health (item 4). */
const insight = HttpApiGroup.make("insight")
  .add(
    HttpApiEndpoint.post("explain", "/policy/explain").setPayload(PolicyExplainRequest).addSuccess(PolicyExplanation)
  )
  .add(HttpApiEndpoint.get("nodes", "/connections/:id/nodes").setPath(IdPath).addSuccess(Schema.Array(UiNodeHealth)))
  .add(
    HttpApiEndpoint.post("consoleRequest", "/connections/:id/tables/:table/console-request").setPath(TablePath)
      .setUrlParams(DatabaseParams).setPayload(UiBrowseRequest)
      .addSuccess(Schema.Struct({ text: Schema.String }))
  )

/** The sidebar tree (D-98): databases and schemas first, a schema's objects when it is expanded. */
const catalog = HttpApiGroup.make("catalog")
  .add(
    HttpApiEndpoint.get("overview", "/connections/:id/catalog").setPath(IdPath).setUrlParams(DatabaseParams).addSuccess(
      UiCatalog
    )
  )
  .add(
    HttpApiEndpoint.get("objects", "/connections/:id/catalog/objects").setPath(IdPath)
      .setUrlParams(Schema.Struct({ schema: Schema.optional(Schema.String), database: Schema.optional(Schema.String) }))
      .addSuccess(UiCatalogObjects)
  )

/** The UI's Export (D-92): started on the server's exporter, its progress polled, cancelled by the UI's id. */
const exportsGroup = HttpApiGroup.make("exports")
  .add(
    HttpApiEndpoint.post("startExport", "/connections/:id/export").setPath(IdPath).setPayload(UiExportRequest)
      .addSuccess(UiExportStatus)
  )
  .add(
    HttpApiEndpoint.get("exportStatus", "/exports/:runId").setPath(Schema.Struct({ runId: Schema.String })).addSuccess(
      UiExportStatus
    )
  )
  .add(
    HttpApiEndpoint.post("cancelExport", "/exports/:runId/cancel").setPath(Schema.Struct({ runId: Schema.String }))
      .addSuccess(Schema.Struct({ cancelled: Schema.Number }))
  )
  .add(HttpApiEndpoint.get("exportFolder", "/export-folder").addSuccess(UiExportFolder))

/** The UI API (D-3, D-60): served under `/api` on the UI port; the UI derives its client from it. */
export class UiApi extends HttpApi.make("ui")
  .add(server)
  .add(connections)
  .add(browse)
  .add(search)
  .add(mcp)
  .add(work)
  .add(insight)
  .add(catalog)
  .add(exportsGroup)
  .addError(UiError, { status: 400 })
  .addError(UiNotFound, { status: 404 })
  .prefix("/api")
{}

export { UiColumn }
