export { resolveSession, authenticate, authInfo, createAuthenticator } from './resolveSession.js';
export { checkAuthConfig } from './authenticator.js';
export type { Authenticator, AuthenticatorOptions, AuthInfo, AuthMode, AuthResult } from './authenticator.js';
export { AuthConfigError, DEFAULT_CLAIMS_NAMESPACE } from './jwtSettings.js';
export { graphqlAuthFailureHttp } from './graphqlAuthStatus.js';
export type { AuthFailureHttp } from './graphqlAuthStatus.js';
export type { AuthLogger } from './authLogger.js';
export { secretEquals } from './secretEquals.js';
export { bodyTooLarge, checkNonAdminBody, checkUnauthenticatedBody, MAX_NON_ADMIN_JSON_DEPTH } from './bodyLimits.js';
