import type { Command } from 'commander';

/** The "Examples" section of each help page (issue 19), by command path after `engine`. */
const EXAMPLES: Record<string, string[]> = {
  '': ['engine init my-project', 'engine serve', 'engine metadata apply --dry-run'],
  serve: ['engine serve', 'engine serve --port 0 --data-dir /tmp/engine-data', 'engine serve --database-url postgres://user@localhost:5432/app'],
  version: ['engine version', 'engine version --endpoint https://engine.example.com -o json'],
  init: ['engine init my-project', 'engine init . --endpoint http://localhost:8080 --admin-secret "$SECRET"'],
  metadata: ['engine metadata export', 'engine metadata apply --dry-run', 'engine metadata diff --exit-code'],
  'metadata export': ['engine metadata export', 'engine metadata export --prune', 'engine metadata export -o yaml > metadata.yaml'],
  'metadata apply': ['engine metadata apply --dry-run', 'engine metadata apply', 'engine metadata apply --allow-inconsistent -o json'],
  'metadata diff': ['engine metadata diff', 'engine metadata diff --exit-code', 'engine metadata diff --from old/metadata --to metadata'],
  'metadata validate': ['engine metadata validate', 'engine metadata validate --server', 'engine metadata validate -o json'],
  'metadata build': ['engine metadata build', 'engine metadata build -o yaml'],
  'metadata clear': ['engine metadata clear', 'engine metadata clear --yes'],
  'metadata reload': ['engine metadata reload'],
  'metadata schema': ['engine metadata schema --role user', 'engine metadata schema --role user --session-var x-engine-user-id=1', 'engine metadata schema --all-roles --output-dir schema/'],
  db: ['engine db reset --yes'],
  'db reset': ['engine db reset', 'engine db reset --yes --data-dir /tmp/engine-data'],
  test: ['engine test', 'engine test tests/articles.test.yaml --coverage --min-coverage 80', 'engine test --reporter junit --output report.xml'],
  'metadata inconsistency': ['engine metadata inconsistency list', 'engine metadata ic status'],
  'metadata inconsistency list': ['engine metadata inconsistency list', 'engine metadata ic ls -o json'],
  'metadata inconsistency status': ['engine metadata inconsistency status && echo consistent'],
  'metadata inconsistency drop': ['engine metadata inconsistency drop'],
  actions: ['engine actions create login --sdl login.graphql', 'engine actions codegen'],
  'actions create': ['engine actions create login --sdl login.graphql', "engine actions create publish --derive-from 'mutation { insert_article_one(object: {}) { id } }'"],
  'actions codegen': ['engine actions codegen', 'engine actions codegen login --framework typescript-express --output-dir handlers'],
  'actions use-codegen': ['engine actions use-codegen --framework typescript-express --output-dir handlers'],
  migrate: ['engine migrate create create_authors', 'engine migrate apply', 'engine migrate status'],
  'migrate create': ['engine migrate create create_authors', 'engine migrate create add_index --sql-from-file add_index.sql'],
  'migrate apply': ['engine migrate apply', 'engine migrate apply --dry-run', 'engine migrate apply --down 1'],
  'migrate status': ['engine migrate status', 'engine migrate status -o json'],
  'migrate config': ['engine migrate config --dry-run', 'engine migrate config'],
  events: ['engine events list article_events', 'engine events redeliver <event-id>'],
  config: ['engine config upgrade --dry-run', 'engine config upgrade'],
  'config upgrade': ['engine config upgrade --dry-run', 'engine config upgrade'],
  deploy: ['engine deploy --dry-run', 'engine deploy'],
  completion: ['engine completion bash > ~/.local/share/bash-completion/completions/engine', 'source <(engine completion zsh)'],
};

const pathOf = (cmd: Command): string => {
  const names: string[] = [];
  for (let c: Command | null = cmd; c?.parent; c = c.parent) names.unshift(c.name());
  return names.join(' ');
};

/** A command without its own examples gets its usage line as one, so that every page has the section. */
function examplesOf(cmd: Command): string[] {
  const path = pathOf(cmd);
  const own = EXAMPLES[path];
  if (own) return own;
  const sub = cmd.commands.filter((c) => c.name() !== 'help').slice(0, 3);
  if (sub.length > 0) return sub.map((c) => `engine ${pathOf(c)} --help`);
  const args = cmd.registeredArguments.filter((a) => a.required).map((a) => `<${a.name()}>`).join(' ');
  return [`engine ${path}${args ? ` ${args}` : ''}`];
}

/**
 * Every help page: the global flags once, under "Global options:" (each command declares them so that they work
 * after the command name too), and an "Examples:" section. Call after every command is registered.
 */
export function addHelpSections(cmd: Command, isGlobal: (long: string) => boolean): void {
  for (const o of cmd.options) if (o.long && isGlobal(o.long)) o.helpGroup('Global options:');
  cmd.addHelpText('after', `\nExamples:\n${examplesOf(cmd).map((e) => `  $ ${e}`).join('\n')}\n`);
  for (const sub of cmd.commands) addHelpSections(sub, isGlobal);
}
