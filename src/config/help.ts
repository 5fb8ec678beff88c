/** The `--help` text, generated from the options table. */
import { OPTIONS } from './options.js';

export function helpText(name = 'svc-graphql-engine'): string {
  const lines = [
    `Usage: ${name} [serve|version|help] [flags]`,
    '',
    'Commands:',
    '  serve     start the engine (default)',
    '  version   print the version',
    '  help      print this help (also --help, -h)',
    '',
    'Flags (each has an environment twin; a flag wins over its variable):',
  ];
  for (const o of OPTIONS) {
    const value = o.boolean ? '[=bool]' : ' <value>';
    const def = o.default !== undefined ? `default: ${o.default}` : `default: ${o.defaultHelp ?? 'unset'}`;
    lines.push(`  ${o.flag}${value}`, `      ${o.help}`, `      env ${o.env}; ${def}`);
  }
  return lines.join('\n') + '\n';
}
