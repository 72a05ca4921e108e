/**
 * The services each feature offers to the others (`use<Services[id]>(id)`, lib/core/feature.ts), by id. Types only,
 * and empty here: each feature adds its own entry from its folder by declaration merging, next to its value
 * (`declare module '../services.js' { interface Services { passkeys: { … } } }` in lib/features/passkeys/index.ts),
 * so an entry exists exactly when its feature is part of the program, and this file names no feature. A feature
 * imports no other feature's folder, only this declaration of what it may use.
 */
export interface Services {}

/**
 * The extension points of the features (`extend` of lib/core/feature.ts) and each one's value type, by point: the
 * feature that owns a point declares it here by declaration merging from its folder (`signIn` and `secondStep` in
 * lib/features/sign-in/index.ts, `accountSections` in lib/features/account/index.ts); a feature adds to one with
 * `extend: { signIn: … }`, the owner reads them with `extensions<ExtensionPoints[point]>(point)` in
 * `routes(provider)`.
 */
export interface ExtensionPoints {}

/**
 * The services of feature `id` as it declares them in {@link Services}, or `Otherwise` when no feature of the
 * program declares `id`: for a feature that uses another one's services when present, so that leaving that feature
 * out of the program (its folder and its line in lib/features/index.ts) does not break this one's types. `Otherwise`
 * says what it reads of them, with the types of the module that uses them (e.g. `PasskeyList` of lib/accounts).
 */
export type ServicesOf<Id extends string, Otherwise> = Id extends keyof Services ? Services[Id] : Otherwise;
