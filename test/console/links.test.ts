/** Which addresses a server sends become links on the console page (issue 25: any scheme did). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { followableUrl } from '../../src/console/page/links.js';

test('only https, and http on a loopback host, become links', () => {
  for (const url of [
    'https://example.com/consent?x=1',
    'http://127.0.0.1:3000/cb',
    'http://localhost/x',
    'http://[::1]:8080/',
  ]) {
    assert.equal(followableUrl(url), url, url);
  }
  for (const url of [
    'javascript:alert(1)',
    'JavaScript:alert(1)',
    'data:text/html,<script>alert(1)</script>',
    'file:///etc/passwd',
    'http://example.com/login',
    'http://127.0.0.1.example.com/',
    'vbscript:msgbox',
    'not a url',
    '',
  ]) {
    assert.equal(followableUrl(url), undefined, url);
  }
});
