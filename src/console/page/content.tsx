/**
 * Results as a person reads them: each content block by its type (text, markdown contents, image,
 * audio, resource links that open, embedded resources), structured content, and errors shown as errors. Server
 * text is always rendered as text: nothing it sends becomes markup or script.
 */
import type { ContentBlock, ResourceContents } from '../../protocol/types.js';
import { Markdown } from './markdown.js';

export function JsonView({ value, label }: { value: unknown; label?: string }) {
  const text = JSON.stringify(value, null, 2);
  return (
    <div class="json">
      <CopyButton text={text} label={label ? `Copy ${label}` : 'Copy JSON'} />
      <pre class="mono">{text}</pre>
    </div>
  );
}

export function CopyButton({ text, label = 'Copy' }: { text: string; label?: string }) {
  return (
    <button type="button" class="small copy" onClick={() => void navigator.clipboard?.writeText(text)}>
      {label}
    </button>
  );
}

const dataUrl = (mimeType: string | undefined, base64: string) =>
  `data:${mimeType ?? 'application/octet-stream'};base64,${base64}`;

export function ContentView({ block, onOpen }: { block: ContentBlock; onOpen: (uri: string) => void }) {
  switch (block.type) {
    case 'text':
      return <pre class="text">{block.text}</pre>;
    case 'image':
      return (
        <figure class="media">
          <img src={dataUrl(block.mimeType, block.data)} alt={`Tool result (${block.mimeType})`} />
          <figcaption>{block.mimeType}</figcaption>
        </figure>
      );
    case 'audio':
      return (
        <figure class="media">
          {/* biome-ignore lint/a11y/useMediaCaption: the server's audio has no captions to offer */}
          <audio controls src={dataUrl(block.mimeType, block.data)} />
          <figcaption>{block.mimeType}</figcaption>
        </figure>
      );
    case 'resource_link':
      return (
        <div class="link">
          <span class="badge">link</span> <strong>{block.title ?? block.name}</strong>{' '}
          <code>{block.uri}</code>{' '}
          <button type="button" class="small" onClick={() => onOpen(block.uri)}>
            Open
          </button>
          {block.description ? <p class="muted">{block.description}</p> : null}
        </div>
      );
    case 'resource':
      return (
        <div class="embedded">
          <span class="badge">embedded</span> <ResourceContentsView contents={block.resource} />
        </div>
      );
    default:
      return <JsonView value={block} />;
  }
}

export function ResourceContentsView({ contents }: { contents: ResourceContents }) {
  const head = (
    <div class="contents-head">
      <code>{contents.uri}</code> {contents.mimeType ? <span class="badge">{contents.mimeType}</span> : null}
    </div>
  );
  if ('text' in contents && typeof contents.text === 'string') {
    return (
      <div class="contents">
        {head}
        {/^text\/markdown\b/i.test(contents.mimeType ?? '') ? (
          <>
            <Markdown text={contents.text} />
            <details>
              <summary>Markdown source</summary>
              <pre class="text">{contents.text}</pre>
            </details>
          </>
        ) : (
          <pre class="text">{contents.text}</pre>
        )}
      </div>
    );
  }
  const blob = 'blob' in contents && typeof contents.blob === 'string' ? contents.blob : '';
  const type = contents.mimeType ?? '';
  return (
    <div class="contents">
      {head}
      {type.startsWith('image/') ? (
        <img src={dataUrl(type, blob)} alt={`Contents of ${contents.uri}`} />
      ) : type.startsWith('audio/') ? (
        // biome-ignore lint/a11y/useMediaCaption: the server's audio has no captions to offer
        <audio controls src={dataUrl(type, blob)} />
      ) : (
        <p class="muted">{Math.floor((blob.length * 3) / 4)} bytes of binary data</p>
      )}
    </div>
  );
}

export function ErrorView({ message, code }: { message: string; code?: string | number | undefined }) {
  return (
    <div class="error" role="alert">
      <strong>Error{code === undefined ? '' : ` ${code}`}:</strong> {message}
    </div>
  );
}
