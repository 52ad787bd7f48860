/**
 * Which upstream of a `switchboard gateway` a namespaced tool or prompt name belongs to, for the
 * page's views and the Node side's fleet view alike.
 */

interface NamedUpstreams {
  readonly upstreams: readonly { readonly name: string }[];
  readonly separator?: string;
}

/** The upstream a tool or prompt name belongs to: the longest server name it starts with, then the separator. */
export function upstreamOfName(gateway: NamedUpstreams | undefined, name: string): string | undefined {
  const separator = gateway?.separator;
  if (!gateway || separator === undefined) return undefined;
  return gateway.upstreams
    .map((u) => u.name)
    .filter((server) => name.startsWith(`${server}${separator}`))
    .sort((a, b) => b.length - a.length)[0];
}
