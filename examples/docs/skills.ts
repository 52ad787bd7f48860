import { Client, Server } from 'switchboard';
import { createLinkedChannels } from 'switchboard/testing';

const server = new Server({ name: 'team-tools', version: '1.0.0' });

// One skill from memory (server.registerSkills('./skills') serves a whole directory from disk).
server.registerSkill({
  name: 'git-workflow',
  files: {
    'SKILL.md':
      '---\nname: git-workflow\ndescription: Follow the team Git conventions.\n---\n\nBranch as topic/<what>; see references/commits.md.\n',
    'references/commits.md': 'One commit per step, its message in the imperative.\n',
  },
});

const [clientSide, serverSide] = createLinkedChannels();
server.connect(serverSide);
const client = new Client({ name: 'host', version: '1.0.0' }, { skills: true });
await client.connect(clientSide);

// The catalogue: each entry has the frontmatter and every file with its digest and size.
const { skills } = await client.listSkills();
for (const skill of skills) console.log(skill.uri, skill.frontmatter.description);

// Reading a file verifies it against the entry (size, SHA-256, SKILL.md frontmatter).
const file = await client.readSkillFile('skill://git-workflow/references/commits.md');
console.log(file.text?.trim());

// Directories are browsable.
const { resources } = await client.readDirectory('skill://git-workflow');
console.log(resources.map((r) => `${r.name} (${r.mimeType})`).join(', '));
await client.close();

// Output:
// skill://git-workflow/SKILL.md Follow the team Git conventions.
// One commit per step, its message in the imperative.
// SKILL.md (text/markdown), references (inode/directory)
