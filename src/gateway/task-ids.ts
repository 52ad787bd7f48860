/**
 * The ids of upstream tasks (the 2026-07-28 tasks extension) as the gateway shows them, so that a
 * `tasks/*` request finds its upstream by the id alone, on any node of a cluster, as names and URIs
 * do: `<server><separator><upstream's id>`. A local (stdio) server's tasks live in the child process
 * of the node that made them, so their ids also name that node: `<server>@<node><separator><id>`.
 */

/** A downstream task id read back: the upstream, the node for a local server's task, its own id. */
export interface TaskIdParts {
  readonly upstream: string;
  readonly node?: string;
  readonly id: string;
}

/** The downstream id of upstream `upstream`'s task `id` (made on `node`, for a local server). */
export function shownTaskId(upstream: string, separator: string, id: string, node?: string): string {
  return `${upstream}${node === undefined ? '' : `@${node}`}${separator}${id}`;
}

/**
 * The parts of a downstream task id, or undefined when it names no upstream `isUpstream` knows
 * (an id the gateway did not make). Every place the separator occurs is tried, so an upstream
 * whose name holds the separator is still found.
 */
export function parseTaskId(
  shown: string,
  separator: string,
  isUpstream: (name: string) => boolean,
): TaskIdParts | undefined {
  for (let cut = shown.indexOf(separator, 1); cut !== -1; cut = shown.indexOf(separator, cut + 1)) {
    const head = shown.slice(0, cut);
    const id = shown.slice(cut + separator.length);
    if (id === '') return undefined;
    if (isUpstream(head)) return { upstream: head, id };
    const at = head.lastIndexOf('@');
    if (at > 0 && isUpstream(head.slice(0, at))) {
      return { upstream: head.slice(0, at), node: head.slice(at + 1), id };
    }
  }
  return undefined;
}
