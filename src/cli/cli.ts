/**
 * The CLI as a function of argv: parse, check usage, connect, run one command, close, and return
 * the exit code (0 ok, 1 failure, 2 usage). Nothing here calls `process.exit`, so output piped to
 * another program is always flushed.
 */
import { describeTarget } from '../node/target.js';
import { COMMANDS, type CommandContext } from './commands.js';
import { describeFailure } from './failure.js';
import { commandHelp, generalHelp } from './help.js';
import { type Invocation, parseInvocation } from './invocation.js';
import type { CliIo } from './io.js';
import { cliVersion, createSession } from './session.js';
import { escapeControls } from './terminal-text.js';
import { UsageError } from './usage-error.js';

export type { CliIo } from './io.js';

export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  // The gateway is a server, not a client command: its own arguments, loaded only when used.
  if (argv[0] === 'gateway') {
    const { runGatewayCli } = await import('./gateway.js');
    return runGatewayCli(argv.slice(1), io).catch((error: unknown) => usageFailure(error, io));
  }
  // The checker has options of its own (--json takes a file there), loaded only when used.
  if (argv[0] === 'check') {
    const { runCheckCli } = await import('./check.js');
    return runCheckCli(argv.slice(1), io);
  }
  // Test files name their own servers: the runner has its own options, loaded only when used.
  if (argv[0] === 'test') {
    const { runTestCli } = await import('./test.js');
    return runTestCli(argv.slice(1), io);
  }
  // `console` serves a page until stopped rather than running one command against one target.
  if (argv[0] === 'console') {
    const { runConsole } = await import('./console-command.js');
    return runConsole(argv.slice(1), {
      ...io,
      untilStopped: io.untilStopped ?? (() => new Promise(() => {})),
    });
  }
  // Writing servers into MCP clients' files: no target of their own.
  if (argv[0] === 'add' || argv[0] === 'remove' || argv[0] === 'list') {
    const { runFleetCli } = await import('./fleet.js');
    return runFleetCli(argv[0], argv.slice(1), io);
  }
  if (argv[0] === 'report') {
    const { runReportCli } = await import('./fleet-report.js');
    return runReportCli(argv.slice(1), io);
  }
  if (argv[0] === 'login' || argv[0] === 'logout') {
    const { runSignInCli } = await import('./sign-in.js');
    return runSignInCli(argv[0], argv.slice(1), io);
  }
  let invocation: Invocation;
  try {
    invocation = parseInvocation(argv, (name) => COMMANDS.has(name));
    if (invocation.kind === 'run') COMMANDS.get(invocation.command)!.checkOperands(invocation.operands);
  } catch (error) {
    return usageFailure(error, io, argv[0]);
  }
  if (invocation.kind === 'version') {
    io.out(`${cliVersion()}\n`);
    return 0;
  }
  if (invocation.kind === 'help') {
    if (invocation.command === undefined) {
      io.out(generalHelp());
      return 0;
    }
    const command = COMMANDS.get(invocation.command);
    if (!command)
      return usageFailure(new UsageError(`Unknown command ${JSON.stringify(invocation.command)}.`), io);
    io.out(commandHelp(command));
    return 0;
  }

  const { options, operands, target } = invocation;
  const command = COMMANDS.get(invocation.command)!;
  // From here on, what is printed carries the server's text: escape its control characters.
  const raw = io;
  io = {
    out: options.json ? raw.out : (text) => raw.out(escapeControls(text)),
    err: (text) => raw.err(escapeControls(text)),
  };
  const session = createSession(target, options, io.err);
  let action = `connect to ${describeTarget(target)}`;
  let failure: unknown;
  try {
    await session.connect();
    const { client } = session;
    if (options.verbose) {
      const info = client.serverInfo;
      io.err(
        `switchboard: connected to ${info ? `${info.name} ${info.version}` : 'the server'} over ${session.transport()}, protocol ${client.revision} (${client.era} era)\n`,
      );
    }
    const ctx: CommandContext = {
      client,
      options,
      operands,
      out: io.out,
      err: io.err,
      step: (next) => {
        action = next;
      },
    };
    return await command.run(ctx);
  } catch (error) {
    failure = error;
  } finally {
    // Closed before reporting, so the stderr tail includes whatever the server wrote on its way out.
    await session.close().catch(() => undefined);
  }
  if (failure instanceof UsageError) return usageFailure(failure, io);
  io.err(
    `${describeFailure(failure, {
      action,
      timeoutMs: options.timeoutMs,
      verbose: options.verbose,
      protocol: options.protocol,
      stderrTail: session.stderrTail(),
    })}\n`,
  );
  return 1;
}

function usageFailure(error: unknown, io: CliIo, commandName?: string): number {
  if (!(error instanceof UsageError)) throw error;
  const command = error.command ?? (commandName && COMMANDS.has(commandName) ? commandName : undefined);
  io.err(
    `switchboard: ${error.message}\nRun "switchboard ${command ? `${command} ` : ''}--help" for usage.\n`,
  );
  return 2;
}
