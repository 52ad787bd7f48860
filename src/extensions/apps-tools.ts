/**
 * MCP Apps on the host's side of a tool list: which view a tool links to and who may use it
 * (`_meta.ui`). Apart from `apps.ts` so a host's page (the console's) can read them without the
 * server's code; `apps.ts` exports them too.
 */
import type { Tool } from '../protocol/types.js';
import { isPlainObject } from '../util/guards.js';

/** Who may use a tool: the agent (`model`) and/or views of this server (`app`). */
export type AppVisibility = 'model' | 'app';

/** `_meta.ui` of a tool. */
export interface AppToolUi {
  /** The `ui://` resource that renders this tool's results. */
  resourceUri?: string;
  /** Default `["model", "app"]`. `["app"]` hides the tool from the model: only views call it. */
  visibility?: AppVisibility[];
}

/** A tool's `_meta.ui`, reading the deprecated flat `_meta["ui/resourceUri"]` too. */
export function toolUi(tool: Pick<Tool, '_meta'>): AppToolUi | undefined {
  const meta = tool._meta;
  if (!meta) return undefined;
  const ui = isPlainObject(meta.ui) ? (meta.ui as AppToolUi) : undefined;
  const legacyUri = meta['ui/resourceUri'];
  if (ui?.resourceUri === undefined && typeof legacyUri === 'string')
    return { ...ui, resourceUri: legacyUri };
  return ui;
}

/** Who may use the tool; the spec's default is both. */
export function toolVisibility(tool: Pick<Tool, '_meta'>): readonly AppVisibility[] {
  const visibility = toolUi(tool)?.visibility;
  return Array.isArray(visibility) ? visibility : ['model', 'app'];
}

/** Whether the model may see and call the tool. */
export const isToolForModel = (tool: Pick<Tool, '_meta'>): boolean => toolVisibility(tool).includes('model');

/** Whether a view of the same server may call the tool (check before proxying a view's `tools/call`). */
export const isToolForApp = (tool: Pick<Tool, '_meta'>): boolean => toolVisibility(tool).includes('app');

/** The tools a model may see: those whose `_meta.ui.visibility` (if any) includes `"model"`. */
export function toolsForModel<T extends Pick<Tool, '_meta'>>(tools: readonly T[]): T[] {
  return tools.filter(isToolForModel);
}
