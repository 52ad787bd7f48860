/** The skills directory the skills tests serve (test/extensions/fixtures/skills). */
import { fileURLToPath } from 'node:url';

export const SKILLS_DIR = fileURLToPath(
  new URL('../../../test/extensions/fixtures/skills/', import.meta.url),
);
