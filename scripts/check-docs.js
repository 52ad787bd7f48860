#!/usr/bin/env node
// Checks that every code example in README.md and docs/*.md is a verbatim copy of its file under
// examples/ (which the build type-checks and the tests run), and that no TypeScript or JavaScript
// block is shown any other way. In the markdown, an example is
//
//   <!-- example: examples/docs/server-basic.ts -->
//   ```ts
//   ...the whole file...
//   ```
//
// Usage: node scripts/check-docs.js [--write] [--root <dir>]
//   --write  copy each file into its markdown block instead of failing on a difference
//   --root   the repository to check (default: the current directory)
// Exit status: 0 when everything matches, 1 otherwise (each problem is listed on stderr).
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const argv = process.argv.slice(2);
const write = argv.includes('--write');
const rootAt = argv.indexOf('--root');
const root = rootAt === -1 ? '.' : argv[rootAt + 1];
if (root === undefined) {
  console.error('check-docs: --root needs a directory.');
  process.exit(1);
}

const MARKER = /<!-- example: (\S+) -->\n```(\w*)\n([\s\S]*?)```\n/g;
const FENCE_LANGUAGE = { '.ts': 'ts', '.js': 'js' };
const CHECKED_LANGUAGES = new Set(['ts', 'typescript', 'tsx', 'js', 'javascript', 'jsx', 'mjs']);

const markdown = ['README.md', ...listMarkdown(join(root, 'docs'))].filter((f) => existsSync(join(root, f)));
const problems = [];
const embedded = new Set();

for (const file of markdown) {
  const path = join(root, file);
  const text = readFileSync(path, 'utf8');
  const updated = text.replace(MARKER, (block, example, language, body) => {
    embedded.add(example);
    const examplePath = join(root, example);
    if (!existsSync(examplePath)) {
      problems.push(`${file}: the example ${example} does not exist.`);
      return block;
    }
    const source = readFileSync(examplePath, 'utf8');
    const expectedLanguage = FENCE_LANGUAGE[example.slice(example.lastIndexOf('.'))] ?? language;
    if (body === source && language === expectedLanguage) return block;
    if (!write) {
      problems.push(
        `${file}: the block for ${example} differs from the file${firstDifference(body, source)}. ` +
          'Edit the file, then run "node scripts/check-docs.js --write" to copy it into the markdown.',
      );
      return block;
    }
    return `<!-- example: ${example} -->\n\`\`\`${expectedLanguage}\n${source}\`\`\`\n`;
  });
  problems.push(...unmarkedCode(file, updated));
  if (write && updated !== text) {
    writeFileSync(path, updated);
    console.log(`check-docs: updated ${file}`);
  }
}

// An example no page shows is either dead or a page forgot it.
const examplesDir = join(root, 'examples', 'docs');
if (existsSync(examplesDir)) {
  for (const name of readdirSync(examplesDir).sort()) {
    const example = relative(root, join(examplesDir, name)).split('\\').join('/');
    if (!embedded.has(example)) problems.push(`${example} is not shown by any page: embed it or delete it.`);
  }
}

if (problems.length > 0) {
  for (const problem of problems) console.error(`check-docs: ${problem}`);
  process.exit(1);
}
console.log(`check-docs: ${embedded.size} examples in ${markdown.length} pages match their files.`);

function listMarkdown(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`);
}

/** Code blocks in a language the build can check that are not embedded examples. */
function unmarkedCode(file, text) {
  const found = [];
  const lines = text.split('\n');
  let open = false;
  for (let i = 0; i < lines.length; i++) {
    const fence = /^```(\w*)\s*$/.exec(lines[i]);
    if (!fence) continue;
    if (open) {
      open = false;
      continue;
    }
    open = true;
    const checkable = CHECKED_LANGUAGES.has(fence[1].toLowerCase());
    if (checkable && !/^<!-- example: \S+ -->$/.test(lines[i - 1] ?? '')) {
      found.push(
        `${file}:${i + 1}: a ${fence[1]} block that is not an example. Put the code in a file under ` +
          'examples/docs/ (where the build type-checks it and the tests run it) and embed it with <!-- example: path -->.',
      );
    }
  }
  return found;
}

/** ` (first difference at line N)`, to find a one-character drift quickly. */
function firstDifference(a, b) {
  const left = a.split('\n');
  const right = b.split('\n');
  for (let i = 0; i < Math.max(left.length, right.length); i++) {
    if (left[i] !== right[i]) return ` (first difference at line ${i + 1} of the example)`;
  }
  return ' (in the fence language)';
}
