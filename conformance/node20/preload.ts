// `node --import <this file> <conformance cli>`: lets the official conformance suite run on Node 20
// without touching node_modules. On Node 22+ (which has `fs.globSync`) it does nothing.
import fs from 'node:fs';
import { register } from 'node:module';

if (!('globSync' in fs)) register('./hooks.js', import.meta.url);
