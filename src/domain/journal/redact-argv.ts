/**
 * A command line with the values of secret-bearing flags masked, for the journal's first record
 * (the supervisor's input) and any log of the command line: a journal or log may be read by
 * more people than the bearer token is meant for.
 *
 * Of the kubelet's flags only --manifest-url-header carries a secret in its value (an
 * `Authorization:Bearer …` header for --manifest-url); the credentials of the others (kubeconfig,
 * bootstrap kubeconfig, TLS keys) are in files the flags name. Each `name:value` pair keeps its
 * header name and loses its value, as /configz shows staticPodURLHeader. Both `--flag=value` and
 * `--flag value` are handled, with dashes or underscores in the name, as the parser takes them.
 * Idempotent, so a replayed run redacts its logged (already redacted) input to the same record.
 */
const SECRET_FLAGS = new Set(['manifest-url-header']);

export function redactArgv(argv: readonly string[], mask: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    const flag = /^--?([^=]+)(=.*)?$/s.exec(arg);
    const name = flag?.[1]?.replace(/_/g, '-');
    if (!flag || name === undefined || !SECRET_FLAGS.has(name)) {
      out.push(arg);
      continue;
    }
    if (flag[2] !== undefined) out.push(`${arg.slice(0, arg.length - flag[2].length)}=${maskHeaderValues(flag[2].slice(1), mask)}`);
    else {
      out.push(arg);
      if (i + 1 < argv.length) out.push(maskHeaderValues(argv[++i]!, mask));
    }
  }
  return out;
}

/** `A:x,B:y` → `A:<mask>,B:<mask>`; a pair without a colon is masked whole. */
function maskHeaderValues(text: string, mask: string): string {
  return text.split(',').map((pair) => {
    const colon = pair.indexOf(':');
    return colon < 0 ? mask : `${pair.slice(0, colon)}:${mask}`;
  }).join(',');
}
