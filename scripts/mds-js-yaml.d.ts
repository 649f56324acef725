// The part of js-yaml (a dependency of the tooling, shipped without types) that scripts/mds-vendor-schemas.ts uses.
declare module 'js-yaml' {
  const yaml: { load(text: string): unknown };
  export default yaml;
}
