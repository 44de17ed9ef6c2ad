/**
 * Fixtures of actions-codegen.test.ts. The temp project links `node_modules` to this repository's, so the generated
 * TypeScript is type-checked against the real typings (@types/express, fastify's own) and run with the real express and
 * fastify (devDependencies) by the host scripts below.
 */

/** Strict settings, so that the generated code is checked as a careful project would check it. */
export const TSCONFIG = JSON.stringify({
  compilerOptions: {
    target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noUnusedLocals: true,
    noUnusedParameters: true, noImplicitReturns: true, noUncheckedIndexedAccess: true, exactOptionalPropertyTypes: true,
    esModuleInterop: true, skipLibCheck: true, noEmit: true, allowJs: true, checkJs: true, types: ['node'],
  },
  include: ['gen/**/*'],
}, null, 2);

/**
 * `node host.mjs <action>`: mounts the transpiled router gen/<action>.js on a real express app, listens on 127.0.0.1
 * port 0 and prints "listening on <port>" (the usage shown in the template's header comment).
 */
export const EXPRESS_HOST = `import express from 'express';

const { default: router } = await import(\`./gen/\${process.argv[2]}.js\`);
const app = express();
app.use(router);
const server = app.listen(0, '127.0.0.1', (error) => {
  if (error) throw error;
  console.log(\`listening on \${server.address().port}\`);
});
`;

/**
 * `node host.mjs <action>`: registers the transpiled plugin gen/<action>.js on a real fastify app, listens on 127.0.0.1
 * port 0 and prints "listening on <port>" (the usage shown in the template's header comment).
 */
export const FASTIFY_HOST = `import Fastify from 'fastify';

const { default: plugin } = await import(\`./gen/\${process.argv[2]}.js\`);
const app = Fastify();
await app.register(plugin);
await app.listen({ port: 0, host: '127.0.0.1' });
console.log(\`listening on \${app.server.address().port}\`);
`;
