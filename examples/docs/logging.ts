import { Client, Server } from 'switchboard';
import { createLinkedChannels } from 'switchboard/testing';

const server = new Server({ name: 'db', version: '1.0.0' });

server.registerTool('connect', {}, (_args, ctx) => {
  // Every message passes the server's redact option first; the default masks secrets.
  ctx.log(
    'info',
    { host: 'db.internal', dbPassword: 'hunter2', headers: { authorization: 'Basic YWRh' } },
    'db',
  );
  ctx.log('debug', 'below the level the client asked for: not sent');
  ctx.log('error', new Error('Refused: Bearer eyJhbGciOi'));
  return 'connected';
});

for (const version of ['auto', 'legacy'] as const) {
  const [clientEnd, serverEnd] = createLinkedChannels();
  server.connect(serverEnd);
  // logLevel: sent in each request's _meta on 2026-07-28, with logging/setLevel on legacy connections.
  const client = new Client({ name: 'docs', version: '1.0.0' }, { version, logLevel: 'info' });
  client.onLog(({ level, logger, data }) =>
    console.log(`  ${level} ${logger ?? '-'} ${JSON.stringify(data)}`),
  );
  await client.connect(clientEnd);
  console.log(`${client.era}:`);
  await client.callTool('connect');
  await client.close();
}

// Output:
// modern:
//   info db {"host":"db.internal","dbPassword":"[REDACTED]","headers":{"authorization":"[REDACTED]"}}
//   error - {"name":"Error","message":"Refused: Bearer [REDACTED]"}
// legacy:
//   info db {"host":"db.internal","dbPassword":"[REDACTED]","headers":{"authorization":"[REDACTED]"}}
//   error - {"name":"Error","message":"Refused: Bearer [REDACTED]"}
