/**
 * The requirement catalogue: well-formed data, every rule's sentence found in the spec's own text
 * (spec/text/<revision>/, copied from the spec repository) at the level its keyword gives, and
 * docs/check.md's table generated from it.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { REVISIONS, type Revision } from 'switchboard';
import { AREAS, levelIn, REQUIREMENTS, sectionIn, specUrl } from 'switchboard/check';

const repo = fileURLToPath(new URL('../../../', import.meta.url));

/** The page's text as a reader sees it: no code blocks, tags, link targets or emphasis marks; spaces collapsed. */
function prose(markdown: string): string {
  return markdown
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/\[([^\]]*)\]\[[^\]]*\]/g, '$1')
    .replace(/\*\*|__|`/g, '')
    .replace(/(^|\W)_(\S[^_]*?)_(?=\W|$)/g, '$1$2')
    .replace(/\\([_*])/g, '$1')
    .replace(/\s+/g, ' ');
}

/** A heading's anchor, as the spec's site makes it. */
const anchor = (heading: string) =>
  heading
    .toLowerCase()
    .replace(/[^a-z0-9 -]/g, '')
    .trim()
    .replace(/ /g, '-');

/**
 * The markdown of a spec page in one revision (`basic/patterns` is `basic/patterns/index.mdx`); a
 * SEP's page (`seps/2640-skills-extension`) is the same text in every revision.
 */
function page(revision: Revision, section: string): string | undefined {
  const path = section.split('#')[0]!;
  const tree = path.startsWith('seps/') ? 'spec/text' : `spec/text/${revision}`;
  for (const file of [`${tree}/${path}.mdx`, `${tree}/${path}/index.mdx`]) {
    if (existsSync(`${repo}${file}`)) return readFileSync(`${repo}${file}`, 'utf8');
  }
  return undefined;
}

/** Whether a sentence carries the keyword of a level (MUST NOT is a MUST, REQUIRED one too). */
const KEYWORD: Record<string, RegExp> = {
  MUST: /\b(MUST|REQUIRED|SHALL)\b/,
  SHOULD: /\b(SHOULD|RECOMMENDED)\b/,
  MAY: /\b(MAY|OPTIONAL)\b/,
};

describe('the requirement catalogue', () => {
  test('ids are unique, named area.rule, and every field is filled', () => {
    const ids = REQUIREMENTS.map((r) => r.id);
    assert.equal(new Set(ids).size, ids.length);
    for (const r of REQUIREMENTS) {
      assert.match(r.id, /^[a-z]+\.[a-z0-9-]+$/, r.id);
      assert.ok((AREAS as readonly string[]).includes(r.area), r.id);
      assert.equal(r.id.split('.')[0], r.area, r.id);
      assert.ok(['MUST', 'SHOULD', 'MAY', 'HARDENING'].includes(r.level), r.id);
      assert.ok(r.revisions.length > 0 && r.revisions.every((v) => REVISIONS.includes(v)), r.id);
      assert.ok(r.text.endsWith('.'), r.id);
    }
  });

  test("every rule's sentence is in the text of each revision it cites, under an anchor the page has", () => {
    const problems: string[] = [];
    for (const r of REQUIREMENTS) {
      for (const source of [...r.sources, ...(r.pages ?? [])]) {
        for (const revision of source.revisions) {
          const markdown = page(revision, source.section);
          if (markdown === undefined) {
            problems.push(`${r.id}: ${revision} has no page ${source.section}`);
            continue;
          }
          const quote = 'quote' in source ? String(source.quote) : undefined;
          if (quote !== undefined && !prose(markdown).includes(prose(quote))) {
            problems.push(`${r.id}: ${revision} ${source.section} does not say "${quote}"`);
          }
          const hash = source.section.split('#')[1];
          const headings = [...markdown.matchAll(/^#+ (.+)$/gm)].map((m) => anchor(String(m[1])));
          if (hash !== undefined && !headings.includes(hash)) {
            problems.push(`${r.id}: ${revision} ${source.section}: the page has no heading #${hash}`);
          }
        }
      }
    }
    assert.deepEqual(problems, []);
  });

  test('each revision of a rule has one sentence (or, for hardening advice, one page), and links stay in its tree', () => {
    for (const r of REQUIREMENTS) {
      for (const revision of r.revisions) {
        const sentences = r.sources.filter((s) => s.revisions.includes(revision)).length;
        const pages = (r.pages ?? []).filter((p) => p.revisions.includes(revision)).length;
        assert.equal(sentences + pages, 1, `${r.id} in ${revision}`);
        const sep = sectionIn(r, revision).startsWith('seps/');
        assert.ok(
          specUrl(r, revision).startsWith(
            sep
              ? 'https://modelcontextprotocol.io/seps/'
              : `https://modelcontextprotocol.io/specification/${revision}/`,
          ),
        );
      }
      for (const source of r.sources) {
        assert.ok(
          source.revisions.every((v) => r.revisions.includes(v)),
          `${r.id} cites a revision it does not apply to`,
        );
      }
    }
  });

  test("a rule's level is its sentence's keyword, or a reading says why not; hardening advice says why it is advice", () => {
    const unexplained: string[] = [];
    for (const r of REQUIREMENTS) {
      if (r.level === 'HARDENING' || r.sources.length === 0) {
        assert.ok(r.reading, `${r.id}: hardening advice states its reading`);
        continue;
      }
      for (const source of r.sources) {
        for (const revision of source.revisions) {
          const level = levelIn(r, revision);
          if (level === 'HARDENING') continue;
          if (!KEYWORD[level]!.test(source.quote) && !r.reading) {
            unexplained.push(`${r.id} in ${revision}: ${level}, but "${source.quote}"`);
          }
        }
      }
    }
    assert.deepEqual(unexplained, []);
  });

  test('a MAY or a hardening rule never warns and never weighs in the score', async () => {
    const { brokenStatus } = await import('switchboard/check');
    assert.equal(brokenStatus('MAY'), 'advice');
    assert.equal(brokenStatus('HARDENING'), 'advice');
    assert.equal(brokenStatus('SHOULD'), 'warning');
    assert.equal(brokenStatus('MUST'), 'failed');
  });

  test('docs/check.md lists exactly the catalogue of the code', async () => {
    const { code, stdout, stderr } = await new Promise<{ code: number; stdout: string; stderr: string }>(
      (resolve) => {
        execFile(process.execPath, ['scripts/check-catalogue.js'], { cwd: repo }, (error, stdout, stderr) =>
          resolve({ code: error ? 1 : 0, stdout, stderr }),
        );
      },
    );
    assert.equal(code, 0, stderr);
    assert.match(stdout, new RegExp(`lists the ${REQUIREMENTS.length} requirements`));
  });
});
