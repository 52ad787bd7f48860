/** The lists of the Tools, Resources and Prompts tabs: a heading with Refresh, and items to choose from. */
import { Fragment } from 'preact';
import { ErrorView } from './content.js';

export interface ListedItem {
  readonly key: string;
  readonly title: string;
  /** The name or URI, under the title. */
  readonly subtitle: string;
  readonly icons?: readonly { readonly src: string }[];
  /** The server behind a gateway it comes from: items are listed under their server's name. */
  readonly group?: string | undefined;
}

export function Icon({ item }: { item: { icons?: readonly { src: string }[] } }) {
  // Only icons carried in the data itself: the console fetches nothing from elsewhere.
  const icon = item.icons?.find((i) => i.src.startsWith('data:image/'));
  return icon ? <img class="icon" src={icon.src} alt="" /> : <span class="icon" aria-hidden="true" />;
}

export function ItemList({
  heading,
  items,
  current,
  onSelect,
  onRefresh,
  error,
}: {
  heading: string;
  /** undefined while loading. */
  items: readonly ListedItem[] | undefined;
  current: string | undefined;
  onSelect: (key: string) => void;
  onRefresh?: () => void;
  error?: string | undefined;
}) {
  return (
    <>
      <div class="list-head">
        <h2>{heading}</h2>
        {onRefresh ? (
          <button type="button" class="small" onClick={onRefresh}>
            Refresh
          </button>
        ) : null}
      </div>
      {error ? <ErrorView message={error} /> : null}
      {items === undefined ? <p class="muted">Loading…</p> : null}
      {items?.length === 0 && !error ? <p class="muted">None.</p> : null}
      {groupsOf(items ?? []).map(([group, members]) => (
        <Fragment key={group ?? ''}>
          {group === undefined ? null : <h3 class="group">{group}</h3>}
          <ul aria-label={group === undefined ? undefined : `${heading} of ${group}`}>
            {members.map((item) => (
              <li key={item.key}>
                <button
                  type="button"
                  class="item"
                  aria-current={item.key === current}
                  onClick={() => onSelect(item.key)}
                >
                  <Icon item={item} />
                  <span>
                    <strong>{item.title}</strong>
                    <small class="muted">{item.subtitle}</small>
                  </span>
                </button>
              </li>
            ))}
          </ul>
        </Fragment>
      ))}
    </>
  );
}

/** Items by group in first-seen order, ungrouped ones (the gateway's own, or any other server's) first. */
function groupsOf(items: readonly ListedItem[]): [string | undefined, ListedItem[]][] {
  const groups = new Map<string | undefined, ListedItem[]>([[undefined, []]]);
  for (const item of items) {
    const members = groups.get(item.group) ?? [];
    members.push(item);
    groups.set(item.group, members);
  }
  return [...groups].filter(([group, members]) => group !== undefined || members.length > 0);
}
