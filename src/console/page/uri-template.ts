/** RFC 6570 expansion (levels 1-3, what resource templates use) for building a URI from a template's fields. */

const OPERATORS: Record<
  string,
  { first: string; sep: string; named: boolean; ifEmpty: string; reserved: boolean }
> = {
  '': { first: '', sep: ',', named: false, ifEmpty: '', reserved: false },
  '+': { first: '', sep: ',', named: false, ifEmpty: '', reserved: true },
  '#': { first: '#', sep: ',', named: false, ifEmpty: '', reserved: true },
  '.': { first: '.', sep: '.', named: false, ifEmpty: '', reserved: false },
  '/': { first: '/', sep: '/', named: false, ifEmpty: '', reserved: false },
  ';': { first: ';', sep: ';', named: true, ifEmpty: '', reserved: false },
  '?': { first: '?', sep: '&', named: true, ifEmpty: '=', reserved: false },
  '&': { first: '&', sep: '&', named: true, ifEmpty: '=', reserved: false },
};

const EXPRESSION = /\{([+#./;?&]?)([^}]*)\}/g;

/** The variable names of a template, in order, without modifiers. */
export function templateVariables(template: string): string[] {
  const names: string[] = [];
  for (const [, , list] of template.matchAll(EXPRESSION)) {
    for (const spec of (list ?? '').split(',')) {
      const name = spec.replace(/[*]$|:\d+$/, '').trim();
      if (name && !names.includes(name)) names.push(name);
    }
  }
  return names;
}

export function expandTemplate(template: string, values: Record<string, string>): string {
  return template.replace(EXPRESSION, (_, op: string, list: string) => {
    const rule = OPERATORS[op] ?? OPERATORS['']!;
    const parts: string[] = [];
    for (const spec of list.split(',')) {
      const name = spec.replace(/[*]$|:\d+$/, '').trim();
      const value = values[name];
      if (value === undefined || (value === '' && !rule.named)) continue;
      const encoded = rule.reserved ? encodeURI(value) : encodeURIComponent(value);
      parts.push(rule.named ? (value === '' ? `${name}${rule.ifEmpty}` : `${name}=${encoded}`) : encoded);
    }
    return parts.length === 0 ? '' : rule.first + parts.join(rule.sep);
  });
}
