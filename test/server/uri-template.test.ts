import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { SwitchboardError } from '../../src/protocol/errors.js';
import {
  MAX_MATCH_URI_LENGTH,
  MAX_TEMPLATE_LENGTH,
  matchAny,
  UriTemplate,
  UriTemplateIndex,
  type UriTemplateValue,
} from '../../src/server/uri-template.js';
import { lastSearchWork, TemplateMatcher } from '../../src/server/uri-template-matcher.js';
import { parseTemplate } from '../../src/server/uri-template-syntax.js';

// The variables of RFC 6570 §3.2 (the `keys` pairs in the RFC's order).
const RFC_VARS: Record<string, UriTemplateValue> = {
  count: ['one', 'two', 'three'],
  dom: ['example', 'com'],
  dub: 'me/too',
  hello: 'Hello World!',
  half: '50%',
  var: 'value',
  who: 'fred',
  base: 'http://example.com/home/',
  path: '/foo/bar',
  list: ['red', 'green', 'blue'],
  keys: { semi: ';', dot: '.', comma: ',' },
  v: '6',
  x: '1024',
  y: '768',
  empty: '',
  empty_keys: {},
  undef: null,
};

const expand = (template: string, vars: Record<string, UriTemplateValue> = RFC_VARS) =>
  new UriTemplate(template).expand(vars);

function expectConfigError(fn: () => unknown, ...fragments: string[]): void {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof SwitchboardError, `expected a SwitchboardError, got ${String(error)}`);
    assert.equal(error.code, 'CONFIG');
    for (const fragment of fragments)
      assert.ok(error.message.includes(fragment), `"${error.message}" lacks "${fragment}"`);
    return true;
  });
}

describe('expansion: RFC 6570 examples', () => {
  const sections: Record<string, [string, string][]> = {
    '1.2 level 1': [
      ['{var}', 'value'],
      ['{hello}', 'Hello%20World%21'],
    ],
    '1.2 level 2': [
      ['{+var}', 'value'],
      ['{+hello}', 'Hello%20World!'],
      ['{+path}/here', '/foo/bar/here'],
      ['here?ref={+path}', 'here?ref=/foo/bar'],
      ['X{#var}', 'X#value'],
      ['X{#hello}', 'X#Hello%20World!'],
    ],
    '1.2 level 3': [
      ['map?{x,y}', 'map?1024,768'],
      ['{x,hello,y}', '1024,Hello%20World%21,768'],
      ['{+x,hello,y}', '1024,Hello%20World!,768'],
      ['{+path,x}/here', '/foo/bar,1024/here'],
      ['{#x,hello,y}', '#1024,Hello%20World!,768'],
      ['{#path,x}/here', '#/foo/bar,1024/here'],
      ['X{.var}', 'X.value'],
      ['X{.x,y}', 'X.1024.768'],
      ['{/var}', '/value'],
      ['{/var,x}/here', '/value/1024/here'],
      ['{;x,y}', ';x=1024;y=768'],
      ['{;x,y,empty}', ';x=1024;y=768;empty'],
      ['{?x,y}', '?x=1024&y=768'],
      ['{?x,y,empty}', '?x=1024&y=768&empty='],
      ['?fixed=yes{&x}', '?fixed=yes&x=1024'],
      ['{&x,y,empty}', '&x=1024&y=768&empty='],
    ],
    '1.2 level 4': [
      ['{var:3}', 'val'],
      ['{var:30}', 'value'],
      ['{list}', 'red,green,blue'],
      ['{list*}', 'red,green,blue'],
      ['{keys}', 'semi,%3B,dot,.,comma,%2C'],
      ['{keys*}', 'semi=%3B,dot=.,comma=%2C'],
      ['{+path:6}/here', '/foo/b/here'],
      ['{+list}', 'red,green,blue'],
      ['{+list*}', 'red,green,blue'],
      ['{+keys}', 'semi,;,dot,.,comma,,'],
      ['{+keys*}', 'semi=;,dot=.,comma=,'],
      ['{#path:6}/here', '#/foo/b/here'],
      ['{#list}', '#red,green,blue'],
      ['{#list*}', '#red,green,blue'],
      ['{#keys}', '#semi,;,dot,.,comma,,'],
      ['{#keys*}', '#semi=;,dot=.,comma=,'],
      ['X{.var:3}', 'X.val'],
      ['X{.list}', 'X.red,green,blue'],
      ['X{.list*}', 'X.red.green.blue'],
      ['X{.keys}', 'X.semi,%3B,dot,.,comma,%2C'],
      ['X{.keys*}', 'X.semi=%3B.dot=..comma=%2C'],
      ['{/var:1,var}', '/v/value'],
      ['{/list}', '/red,green,blue'],
      ['{/list*}', '/red/green/blue'],
      ['{/list*,path:4}', '/red/green/blue/%2Ffoo'],
      ['{/keys}', '/semi,%3B,dot,.,comma,%2C'],
      ['{/keys*}', '/semi=%3B/dot=./comma=%2C'],
      ['{;hello:5}', ';hello=Hello'],
      ['{;list}', ';list=red,green,blue'],
      ['{;list*}', ';list=red;list=green;list=blue'],
      ['{;keys}', ';keys=semi,%3B,dot,.,comma,%2C'],
      ['{;keys*}', ';semi=%3B;dot=.;comma=%2C'],
      ['{?var:3}', '?var=val'],
      ['{?list}', '?list=red,green,blue'],
      ['{?list*}', '?list=red&list=green&list=blue'],
      ['{?keys}', '?keys=semi,%3B,dot,.,comma,%2C'],
      ['{?keys*}', '?semi=%3B&dot=.&comma=%2C'],
      ['{&var:3}', '&var=val'],
      ['{&list}', '&list=red,green,blue'],
      ['{&list*}', '&list=red&list=green&list=blue'],
      ['{&keys}', '&keys=semi,%3B,dot,.,comma,%2C'],
      ['{&keys*}', '&semi=%3B&dot=.&comma=%2C'],
    ],
    '3.2.1 variable expansion': [
      ['{count}', 'one,two,three'],
      ['{count*}', 'one,two,three'],
      ['{/count}', '/one,two,three'],
      ['{/count*}', '/one/two/three'],
      ['{;count}', ';count=one,two,three'],
      ['{;count*}', ';count=one;count=two;count=three'],
      ['{?count}', '?count=one,two,three'],
      ['{?count*}', '?count=one&count=two&count=three'],
      ['{&count*}', '&count=one&count=two&count=three'],
    ],
    '3.2.2 simple string expansion': [
      ['{var}', 'value'],
      ['{hello}', 'Hello%20World%21'],
      ['{half}', '50%25'],
      ['O{empty}X', 'OX'],
      ['O{undef}X', 'OX'],
      ['{x,y}', '1024,768'],
      ['{x,hello,y}', '1024,Hello%20World%21,768'],
      ['?{x,empty}', '?1024,'],
      ['?{x,undef}', '?1024'],
      ['?{undef,y}', '?768'],
      ['{var:3}', 'val'],
      ['{var:30}', 'value'],
    ],
    '3.2.3 reserved expansion': [
      ['{+var}', 'value'],
      ['{+hello}', 'Hello%20World!'],
      ['{+half}', '50%25'],
      ['{base}index', 'http%3A%2F%2Fexample.com%2Fhome%2Findex'],
      ['{+base}index', 'http://example.com/home/index'],
      ['O{+empty}X', 'OX'],
      ['O{+undef}X', 'OX'],
      ['{+path}/here', '/foo/bar/here'],
      ['here?ref={+path}', 'here?ref=/foo/bar'],
      ['up{+path}{var}/here', 'up/foo/barvalue/here'],
      ['{+x,hello,y}', '1024,Hello%20World!,768'],
      ['{+path,x}/here', '/foo/bar,1024/here'],
    ],
    '3.2.4 fragment expansion': [
      ['{#var}', '#value'],
      ['{#hello}', '#Hello%20World!'],
      ['{#half}', '#50%25'],
      ['foo{#empty}', 'foo#'],
      ['foo{#undef}', 'foo'],
    ],
    '3.2.5 label expansion': [
      ['{.who}', '.fred'],
      ['{.who,who}', '.fred.fred'],
      ['{.half,who}', '.50%25.fred'],
      ['www{.dom*}', 'www.example.com'],
      ['X{.empty}', 'X.'],
      ['X{.undef}', 'X'],
      ['X{.empty_keys}', 'X'],
      ['X{.empty_keys*}', 'X'],
    ],
    '3.2.6 path segment expansion': [
      ['{/who}', '/fred'],
      ['{/who,who}', '/fred/fred'],
      ['{/half,who}', '/50%25/fred'],
      ['{/who,dub}', '/fred/me%2Ftoo'],
      ['{/var,empty}', '/value/'],
      ['{/var,undef}', '/value'],
    ],
    '3.2.7 path-style parameters': [
      ['{;who}', ';who=fred'],
      ['{;half}', ';half=50%25'],
      ['{;empty}', ';empty'],
      ['{;v,empty,who}', ';v=6;empty;who=fred'],
      ['{;v,bar,who}', ';v=6;who=fred'],
      ['{;x,y,undef}', ';x=1024;y=768'],
    ],
    '3.2.8 form-style query': [
      ['{?who}', '?who=fred'],
      ['{?half}', '?half=50%25'],
      ['{?x,y,undef}', '?x=1024&y=768'],
    ],
    '3.2.9 form-style continuation': [
      ['{&who}', '&who=fred'],
      ['{&half}', '&half=50%25'],
      ['{&x,y,undef}', '&x=1024&y=768'],
    ],
  };
  for (const [section, cases] of Object.entries(sections)) {
    test(section, () => {
      for (const [template, expected] of cases) assert.equal(expand(template), expected, template);
    });
  }

  test('1.2 introduction examples', () => {
    assert.equal(
      expand('http://example.com/~{username}/', { username: 'fred' }),
      'http://example.com/~fred/',
    );
    assert.equal(
      expand('http://example.com/search{?q,lang}', { q: 'cat', lang: 'en' }),
      'http://example.com/search?q=cat&lang=en',
    );
    assert.equal(
      expand('http://www.example.com/foo{?query,number}', { query: 'mycelium', number: 100 }),
      'http://www.example.com/foo?query=mycelium&number=100',
    );
  });
});

describe('expansion: beyond the RFC examples', () => {
  test('encodes UTF-8, keeps triplets only for + and #, counts prefixes in characters', () => {
    assert.equal(expand('{v}', { v: 'é€😀' }), '%C3%A9%E2%82%AC%F0%9F%98%80');
    assert.equal(expand('{+v}', { v: '%41%zz/é' }), '%41%25zz/%C3%A9');
    assert.equal(expand('{v}', { v: '%41' }), '%2541');
    assert.equal(expand('{#v}', { v: '%2F' }), '#%2F');
    assert.equal(expand('{v:2}', { v: '😀😁😂' }), '%F0%9F%98%80%F0%9F%98%81');
    assert.equal(expand('{v}', { v: "!*'()" }), '%21%2A%27%28%29');
    assert.equal(expand('{v}', { v: '\ud800x' }), '%EF%BF%BDx', 'a lone surrogate becomes U+FFFD');
  });

  test('literals keep reserved characters and %-encode non-ASCII ones', () => {
    assert.equal(expand('café://{v}?a=[1]', { v: 'x' }), 'caf%C3%A9://x?a=[1]');
    assert.equal(expand('p%2Fq{v}', { v: 'x' }), 'p%2Fqx');
  });

  test('numbers, lists of numbers, empty lists and objects', () => {
    assert.equal(expand('item/{id}{?page}', { id: 42, page: 0 }), 'item/42?page=0');
    assert.equal(expand('{/ids*}', { ids: [1, 2] }), '/1/2');
    assert.equal(expand('a{/ids*}{?q}', { ids: [], q: undefined }), 'a');
    assert.equal(expand('{?keys*}', { keys: { a: '', b: 'x' } }), '?a=&b=x');
    assert.equal(expand('{;keys*}', { keys: { a: '', b: 'x' } }), ';a;b=x');
    assert.equal(expand('{keys*}', { keys: { a: '' } }), 'a=');
  });

  test('only own properties count as variables', () => {
    assert.equal(expand('x{constructor}{toString}{/__proto__}', {}), 'x');
  });

  test('a prefix on a list, or a value of the wrong kind, is a CONFIG error', () => {
    expectConfigError(() => expand('{list:3}', { list: ['a'] }), '"list"', 'prefix', 'strings only');
    expectConfigError(() => expand('{keys:3}', { keys: { a: 'b' } }), 'object');
    expectConfigError(() => expand('{v}', { v: true as unknown as string }), '"v" is a boolean');
  });
});

describe('parsing', () => {
  test('variableNames, literalLength, template, isTemplate', () => {
    const t = new UriTemplate('repo://{owner}/{repo}{/path*}{?ref,owner}');
    assert.equal(t.template, 'repo://{owner}/{repo}{/path*}{?ref,owner}');
    assert.deepEqual(t.variableNames, ['owner', 'repo', 'path', 'ref']);
    assert.equal(t.literalLength, 'repo:///'.length);
    assert.ok(Object.isFrozen(t.variableNames));
    assert.equal(UriTemplate.isTemplate('users://{id}'), true);
    assert.equal(UriTemplate.isTemplate('file:///etc/hosts'), false);
    assert.equal(UriTemplate.isTemplate('a{}b'), false);
    assert.deepEqual(new UriTemplate('{a.b%20c,_1:9999}').variableNames, ['a.b%20c', '_1']);
  });

  test('malformed templates throw CONFIG errors naming the offset and the fix', () => {
    const cases: [string, ...string[]][] = [
      ['users://{id', 'unclosed expression', 'offset 8', '%7B'],
      ['a{b{c}}', 'unclosed expression', 'offset 1'],
      ['a}b', "'}' without a matching '{'", 'offset 1', '%7D'],
      ['x{}', "empty expression '{}'", 'offset 1'],
      ['{+}', 'missing variable name', 'offset 2'],
      ['{a,}', 'missing variable name', 'offset 3'],
      ['{,a}', "operator ',' is reserved", 'offset 1'],
      ['{a-b}', 'invalid character "-" after variable name "a"', 'offset 2'],
      ['{-a}', 'invalid character "-" in a variable name', 'offset 1'],
      ['{a.}', "ends with '.'", 'offset 2'],
      ['{a..b}', "contains '..'", 'offset 2'],
      ['{=a}', "operator '=' is reserved", 'offset 1'],
      ['{!a}', "operator '!' is reserved"],
      ['{|a}', "operator '|' is reserved"],
      ['{a:0}', 'prefix length "0"', 'offset 3'],
      ['{a:10000}', 'prefix length "10000"'],
      ['{a:01}', 'prefix length "01"'],
      ['{a:}', 'prefix length ""'],
      ['{a:3*}', 'prefix length "3*"', 'not both'],
      ['{a*:3}', "'*' is not the last character", 'not both'],
      ['{a b}', 'invalid character " "'],
      ['a b{c}', 'character " " is not allowed', 'offset 1'],
      ['a"{c}', 'character "\\"" is not allowed'],
      ['a<{c}', 'not allowed'],
      ['a^{c}', 'not allowed'],
      ['50%{c}', "'%' that does not start a %XX triplet", 'offset 2', '%25'],
      ['{a%2}', 'invalid character "%"'],
    ];
    for (const [template, ...fragments] of cases) {
      expectConfigError(() => new UriTemplate(template), JSON.stringify(template), ...fragments);
    }
  });

  test('templates longer than the limit are refused', () => {
    expectConfigError(() => new UriTemplate(`a${'b'.repeat(MAX_TEMPLATE_LENGTH)}`), 'limit is 4096');
    assert.equal(new UriTemplate('b'.repeat(MAX_TEMPLATE_LENGTH)).literalLength, MAX_TEMPLATE_LENGTH);
  });
});

describe('matching', () => {
  test('round trips: expand, then match, gives the variables back', () => {
    const cases: [string, Record<string, string | string[]>][] = [
      ['users://{id}/profile', { id: 'a b/c?d#e,f' }],
      ['users://{id}/profile', { id: '' }],
      ['file:///{+path}', { path: 'dir/sub dir/file?.txt' }],
      ['file:///{+path}', { path: '100% done/ü' }],
      ['doc://x{#section}', { section: 'intro/part 1' }],
      ['doc://{name}{.ext}', { name: 'report', ext: 'tar.gz' }],
      ['dns://{host}{.domain*}', { host: 'www', domain: ['example', 'com'] }],
      ['repo://r{/owner,name}', { owner: 'octo cat', name: 'hello/world' }],
      ['repo://r{/path*}', { path: ['a', 'b c', '', 'd/e'] }],
      ['m://x{;color,size}', { color: 'red', size: '' }],
      ['m://x{;list*}', { list: ['a', 'b;c'] }],
      ['search://q{?query,limit}', { query: 'cats & dogs=1', limit: '10' }],
      ['search://q{?query,limit}', { limit: '10' }],
      ['search://q{?tags*}', { tags: ['x', 'y&z'] }],
      ['search://q?fixed=yes{&x,y}', { x: '1024', y: '768' }],
      ['pair://{x,y}', { x: '1024', y: '768' }],
      ['api://{ver}/items{/id}{?fields,sort}', { ver: 'v1', id: '7', sort: '-date' }],
      ['api://{ver}/items{/id}{?fields,sort}', { ver: 'v1' }],
      ['w://{+base}index{#frag}', { base: 'http://h/p/', frag: 'top' }],
      ['u://{a.b}/{c%20d}', { 'a.b': 'x', 'c%20d': 'y' }],
    ];
    for (const [template, variables] of cases) {
      const t = new UriTemplate(template);
      const uri = t.expand(variables);
      assert.deepEqual(t.match(uri), variables, `${template} via ${uri}`);
    }
  });

  test('MCP-style templates', () => {
    assert.deepEqual(new UriTemplate('users://{id}/profile').match('users://123/profile'), { id: '123' });
    assert.deepEqual(new UriTemplate('file:///{path}').match('file:///notes.txt'), { path: 'notes.txt' });
    assert.equal(
      new UriTemplate('file:///{path}').match('file:///a/b.txt'),
      undefined,
      'simple values stop at /',
    );
    assert.deepEqual(new UriTemplate('file:///{+path}').match('file:///a/b.txt'), { path: 'a/b.txt' });
    assert.deepEqual(new UriTemplate('search://q{?query,limit}').match('search://q?query=mcp'), {
      query: 'mcp',
    });
    assert.deepEqual(new UriTemplate('search://q{?query,limit}').match('search://q'), {});
  });

  test('values are percent-decoded; malformed escapes are kept, bad UTF-8 becomes U+FFFD', () => {
    const t = new UriTemplate('users://{id}');
    assert.deepEqual(t.match('users://J%C3%BCrgen%2Fx'), { id: 'Jürgen/x' });
    assert.deepEqual(t.match('users://100%'), { id: '100%' });
    assert.deepEqual(t.match('users://a%zz%41'), { id: 'a%zzA' });
    assert.deepEqual(t.match('users://%FFok'), { id: '\ufffdok' });
    assert.deepEqual(t.match('users://a+b'), { id: 'a+b' }, "'+' is not a space");
    assert.deepEqual(t.match('users://a@b:c,d;e'), { id: 'a@b:c,d;e' }, 'unencoded sub-delims are accepted');
  });

  test('matches are anchored; literals compare exactly but for hex case and raw IRI characters', () => {
    const t = new UriTemplate('users://{id}/profile');
    assert.equal(t.match('users://1/profile/'), undefined);
    assert.equal(t.match('xusers://1/profile'), undefined);
    assert.equal(t.match('users://1/Profile'), undefined);
    assert.equal(t.match('users://1/profile?x=1'), undefined, 'no query expression, so no query');
    assert.equal(t.match('users://1?/profile'), undefined);
    const iri = new UriTemplate('café://p%2fq/{v}');
    assert.deepEqual(iri.match('caf%C3%A9://p%2Fq/1'), { v: '1' });
    assert.deepEqual(iri.match('caf%c3%a9://p%2fq/1'), { v: '1' });
    assert.deepEqual(iri.match('café://p%2Fq/1'), { v: '1' });
    assert.equal(iri.match('café://p/q/1'), undefined, '%2F in a literal is not a raw /');
    assert.equal(iri.match('cafe://p%2Fq/1'), undefined);
  });

  test('which characters each operator accepts unencoded', () => {
    assert.equal(new UriTemplate('x/{v}').match('x/a?b'), undefined);
    assert.equal(new UriTemplate('x/{v}').match('x/a#b'), undefined);
    assert.deepEqual(new UriTemplate('x/{+v}').match('x/a/b?c#d'), { v: 'a/b?c#d' });
    assert.deepEqual(new UriTemplate('x{#v}').match('x#a/b?c#d'), { v: 'a/b?c#d' });
    assert.equal(new UriTemplate('x{/v}').match('x/a/b'), undefined);
    assert.deepEqual(new UriTemplate('x{.v}').match('x.a.b'), { v: 'a.b' });
    assert.equal(new UriTemplate('x{;v}').match('x;v=a;b'), undefined);
    assert.deepEqual(new UriTemplate('x{;v}').match('x;v=a,b'), { v: 'a,b' });
    assert.deepEqual(new UriTemplate('x{?v}').match('x?v=a/b?c'), { v: 'a/b?c' });
    assert.deepEqual(new UriTemplate('x{list}').match('xred,green'), { list: 'red,green' });
    assert.deepEqual(new UriTemplate('x{list*}').match('xred,green'), { list: ['red', 'green'] });
  });

  test('ambiguity rule: left to right, optional parts taken, shortest values', () => {
    assert.deepEqual(new UriTemplate('{a}-{b}').match('x-y-z'), { a: 'x', b: 'y-z' });
    assert.deepEqual(new UriTemplate('{a}--{b}').match('x-y---z'), { a: 'x-y', b: '-z' });
    assert.deepEqual(new UriTemplate('{+dir}/{name}').match('p/q/r'), { dir: 'p/q', name: 'r' });
    assert.deepEqual(new UriTemplate('{+name}.{ext}').match('a.b/c.tar.gz'), {
      name: 'a.b/c',
      ext: 'tar.gz',
    });
    assert.deepEqual(new UriTemplate('{/a,b}').match('/x'), { a: 'x' });
    assert.deepEqual(new UriTemplate('{/a*}{/b}').match('/x/y/z'), { a: ['x', 'y', 'z'] });
    assert.deepEqual(new UriTemplate('{a}{b}').match('xy'), { a: '', b: 'xy' });
    assert.deepEqual(new UriTemplate('{x,y}').match('a,b,c'), { x: 'a', y: 'b,c' });
    assert.deepEqual(new UriTemplate('{;x,y}').match(';y=2'), { y: '2' });
    assert.deepEqual(new UriTemplate('{;x,y}').match(';x;y='), { x: '', y: '' });
    assert.deepEqual(new UriTemplate('{+path}{?q}').match('a?q=1'), { path: 'a', q: '1' });
  });

  test('absent and empty variables', () => {
    assert.deepEqual(new UriTemplate('users://{id}').match('users://'), { id: '' });
    assert.deepEqual(new UriTemplate('x{/a,b}').match('x'), {});
    assert.deepEqual(new UriTemplate('x{/a,b}').match('x/'), { a: '' });
    assert.deepEqual(new UriTemplate('foo{#f}').match('foo#'), { f: '' });
    assert.deepEqual(new UriTemplate('foo{#f}').match('foo'), {});
    assert.deepEqual(new UriTemplate('X{.list*}').match('X.'), { list: [''] });
  });

  test('query parameters: any order, optional, extras ignored, first value wins', () => {
    const t = new UriTemplate('search://q{?query,limit}{&tag*}');
    assert.deepEqual(t.match('search://q?limit=5&x=1&query=a%20b&tag=p&tag=q'), {
      query: 'a b',
      limit: '5',
      tag: ['p', 'q'],
    });
    assert.deepEqual(t.match('search://q?query=1&query=2'), { query: '1' });
    assert.deepEqual(t.match('search://q?query&&limit='), { query: '', limit: '' });
    assert.deepEqual(t.match('search://q?'), {});
    assert.deepEqual(t.match('search://q?qu%65ry=x'), { query: 'x' }, 'names are compared decoded');
    assert.deepEqual(t.match('search://q?query=a+b'), { query: 'a+b' });
    assert.equal(t.match('search://q&query=x'), undefined, 'the query must start with ?');
    assert.equal(t.match('search://q?query=x#frag'), undefined, 'no fragment after the query');
    assert.equal(t.match('search://qq?query=x'), undefined);
    const continued = new UriTemplate('s://q?fixed=yes{&x}');
    assert.deepEqual(continued.match('s://q?fixed=yes&x=1'), { x: '1' });
    assert.deepEqual(continued.match('s://q?fixed=yes'), {});
    assert.equal(continued.match('s://q?x=1&fixed=yes'), undefined, 'literal parameters stay in place');
  });

  test('query expressions not at the end are matched in order', () => {
    const t = new UriTemplate('s://q{?a,b}#top');
    assert.deepEqual(t.match('s://q?a=1&b=2#top'), { a: '1', b: '2' });
    assert.deepEqual(t.match('s://q?b=2#top'), { b: '2' });
    assert.equal(t.match('s://q?b=2&a=1#top'), undefined);
  });

  test('a variable used twice must have one value', () => {
    const t = new UriTemplate('{a}/{a}');
    assert.deepEqual(t.match('x/x'), { a: 'x' });
    assert.equal(t.match('x/y'), undefined);
    const q = new UriTemplate('r://{id}{?id}');
    assert.deepEqual(q.match('r://7?id=7'), { id: '7' });
    assert.deepEqual(q.match('r://7'), { id: '7' });
    assert.equal(q.match('r://7?id=8'), undefined);
  });

  test('a variable named __proto__ is an own property of the result', () => {
    const result = new UriTemplate('p://{__proto__}').match('p://x');
    assert.ok(result && Object.hasOwn(result, '__proto__'));
    assert.equal(Object.getOwnPropertyDescriptor(result, '__proto__')?.value, 'x');
    assert.equal(Object.getPrototypeOf(result), Object.prototype);
  });

  test('a template without expressions matches only itself', () => {
    const t = new UriTemplate('file:///etc/hosts');
    assert.deepEqual(t.match('file:///etc/hosts'), {});
    assert.equal(t.match('file:///etc/host'), undefined);
  });

  test('URIs over the length limit never match', () => {
    const t = new UriTemplate('file:///{+path}');
    const prefix = 'file:///';
    assert.ok(t.match(prefix + 'a'.repeat(MAX_MATCH_URI_LENGTH - prefix.length)));
    assert.equal(t.match(prefix + 'a'.repeat(MAX_MATCH_URI_LENGTH - prefix.length + 1)), undefined);
  });
});

describe('matching cost stays linear on pathological input', () => {
  // Each of these takes minutes or forever with a backtracking regular expression. The search counts
  // its work (stack steps and characters scanned): it must stay within the automaton's size times
  // the URI's length, and grow linearly with the URI, not just finish.
  const n = MAX_MATCH_URI_LENGTH - 1;
  const cases: [string, (length: number) => string, string | undefined][] = [
    ['{a}-{b}-{c}-{d}-{e}-{f}', (k) => `${'-'.repeat(k)}/`, undefined],
    ['{a}{b}{c}{d}{e}x', (k) => 'a'.repeat(k), undefined],
    ['{+a}{+b}{+c}{+d}x', (k) => 'a'.repeat(k), undefined],
    ['{+a}/{+b}/{+c}/{d}', (k) => `${'/'.repeat(k)}?`, undefined],
    ['/users{/id*}', (k) => `/users/${'user1,user2,user3,'.repeat(Math.floor(k / 18))}userX?`, undefined],
    ['{list*}{/x*}{.y*}!', (k) => `${'a,'.repeat(Math.floor(k / 2) - 1)}a`, undefined],
    ['x{;a*}{;b*}!', (k) => `x${';a=;b'.repeat(Math.floor(k / 5) - 1)}`, undefined],
    ['{/a,b,c,d,e,f,g,h}!', (k) => `${'/'.repeat(k)}?`, undefined],
    ['{+p}{?q}', (k) => `${'?'.repeat(k)}#`, 'p'],
  ];
  for (const [source, uri, captured] of cases) {
    test(`${source}: work within size × length, and linear in the length`, () => {
      const matcher = new TemplateMatcher(parseTemplate(source));
      const measure = (length: number) => {
        const input = uri(length);
        const match = matcher.match(input);
        assert.equal(match === undefined, captured === undefined, `${source} on ${input.slice(0, 40)}...`);
        return { work: lastSearchWork(), length: input.length };
      };
      const small = measure(n / 8);
      const full = measure(n);
      assert.ok(
        full.work <= 4 * matcher.size * (full.length + 1),
        `${full.work} steps for ${full.length} characters and ${matcher.size} nodes`,
      );
      const growth = full.work / small.work;
      const lengthGrowth = full.length / small.length;
      assert.ok(
        growth <= lengthGrowth * 1.5,
        `work grew ${growth.toFixed(1)}x for a ${lengthGrowth.toFixed(1)}x longer URI`,
      );
    });
  }
});

describe('choosing among templates', () => {
  const templates = [
    new UriTemplate('users://{+rest}'),
    new UriTemplate('users://{id}'),
    new UriTemplate('users://{id}/profile'),
    new UriTemplate('users://me/profile'),
    new UriTemplate('users://{other}/profile'),
    new UriTemplate('{scheme}://{id}/profile'),
    new UriTemplate('files://{+path}'),
  ];

  test('matchAny: the most literal characters win, then the earliest', () => {
    const pick = (uri: string) => {
      const found = matchAny(templates, uri);
      return found && [found.index, found.template.template, found.variables];
    };
    assert.deepEqual(pick('users://me/profile'), [3, 'users://me/profile', {}]);
    assert.deepEqual(pick('users://42/profile'), [2, 'users://{id}/profile', { id: '42' }]);
    assert.deepEqual(pick('users://42'), [0, 'users://{+rest}', { rest: '42' }], 'a tie: the earlier wins');
    assert.deepEqual(pick('users://42/posts'), [0, 'users://{+rest}', { rest: '42/posts' }]);
    assert.deepEqual(pick('groups://7/profile'), [
      5,
      '{scheme}://{id}/profile',
      { scheme: 'groups', id: '7' },
    ]);
    assert.equal(pick('groups://7'), undefined);
    assert.equal(matchAny([], 'users://1'), undefined);
  });

  test('UriTemplateIndex makes the same choices as matchAny', () => {
    const index = new UriTemplateIndex<number>();
    templates.forEach((t, i) => {
      index.add(t, i);
    });
    assert.equal(index.size, templates.length);
    const uris = [
      'users://me/profile',
      'users://42/profile',
      'users://42',
      'users://42/posts',
      'groups://7/profile',
      'groups://7',
      'files://a/b',
      'files:x',
      'no-scheme',
      '',
      ':',
      'users:',
    ];
    for (const uri of uris) {
      const expected = matchAny(templates, uri);
      const actual = index.match(uri);
      assert.equal(actual?.value, expected?.index, uri);
      assert.equal(actual?.template, expected?.template, uri);
      assert.deepEqual(actual?.variables, expected?.variables, uri);
    }
  });

  test('UriTemplateIndex: delete, re-add order, templates without a literal scheme', () => {
    const index = new UriTemplateIndex<string>();
    const specific = new UriTemplate('users://{id}/profile');
    const other = new UriTemplate('users://{other}/profile');
    const wild = new UriTemplate('{s}://{id}/profile/');
    index.add(specific, 'specific');
    index.add(other, 'other');
    index.add(wild, 'wild');
    assert.equal(index.match('users://1/profile')?.value, 'specific');
    assert.equal(
      index.match('users://1/profile/')?.value,
      'wild',
      'more literal characters, other scheme group',
    );
    assert.equal(index.delete(specific), true);
    assert.equal(index.delete(specific), false);
    assert.equal(index.size, 2);
    assert.equal(index.match('users://1/profile')?.value, 'other');
    index.add(specific, 'again');
    assert.equal(index.match('users://1/profile')?.value, 'other', 'ties go to the earlier registration');
    assert.equal(index.delete(wild), true);
    assert.equal(index.match('users://1/profile/'), undefined);
    assert.equal(index.delete(new UriTemplate('nothing://{x}')), false);
  });
});
