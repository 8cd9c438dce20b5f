// Generated from docs/openapi.json (sha256 a4f6becd31d4c565) by scripts/api-types.mjs. Do not edit.

export interface paths {
    "/v1/auth/token": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Exchange an API key for an access token and a refresh token, or (RFC 8693 token exchange) a user token and an agent token for a token of the agent acting for the user */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        /** @description An API key (ghk_…) or the bootstrap key */
                        api_key?: string;
                        /**
                         * @description Token exchange (RFC 8693): an agent acting for a user
                         * @enum {string}
                         */
                        grant_type?: "urn:ietf:params:oauth:grant-type:token-exchange";
                        /** @description Token exchange: the user's access token (gha_…) */
                        subject_token?: string;
                        /** @description urn:ietf:params:oauth:token-type:access_token (the default) */
                        subject_token_type?: string;
                        /** @description Token exchange: the agent's access token (gha_…) */
                        actor_token?: string;
                        /** @description urn:ietf:params:oauth:token-type:access_token (the default) */
                        actor_token_type?: string;
                        /** @description urn:ietf:params:oauth:token-type:access_token (an opaque token for this API, the default) or urn:ietf:params:oauth:token-type:jwt (a signed JWT for a third party) */
                        requested_token_type?: string;
                        /** @description The service a requested jwt is for (its aud); required for a jwt */
                        audience?: string;
                        /** @description Space-separated roles, a subset of the actor token's */
                        scope?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Bearer token (gha_…) */
                            access_token: string;
                            /** @enum {string} */
                            token_type: "Bearer";
                            /** @description Lifetime of the access token in seconds */
                            expires_in: number;
                            /** @description Single-use refresh token (ghr_…); none for a token exchange */
                            refresh_token?: string;
                            /** @description Lifetime of the refresh token in seconds */
                            refresh_expires_in?: number;
                            /** @description Token exchange: what access_token is (RFC 8693) */
                            issued_token_type?: string;
                            /** @description Token exchange: the roles the token carries */
                            scope?: string;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/refresh": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Rotate a refresh token into a new token pair (reuse revokes the whole login) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description The refresh token (ghr_…); it is single-use */
                        refresh_token: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description Bearer token (gha_…) */
                            access_token: string;
                            /** @enum {string} */
                            token_type: "Bearer";
                            /** @description Lifetime of the access token in seconds */
                            expires_in: number;
                            /** @description Single-use refresh token (ghr_…); none for a token exchange */
                            refresh_token?: string;
                            /** @description Lifetime of the refresh token in seconds */
                            refresh_expires_in?: number;
                            /** @description Token exchange: what access_token is (RFC 8693) */
                            issued_token_type?: string;
                            /** @description Token exchange: the roles the token carries */
                            scope?: string;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/revoke": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke the presented token and its refresh token, or the token named in the body */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        /** @description A token to revoke instead of the presented one (yours, or any with tokens:delete) */
                        token?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description How many tokens (access and refresh) were revoked */
                            revoked: number;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/whoami": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Who the presented token acts as: principal, roles, the login it belongs to and when it expires */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            kind: "user" | "agent";
                            id: string;
                            name: string;
                            /** @description The roles this token acts with (an agent: its scope) */
                            roles: string[];
                            /** @description Token exchange: the name of the user the agent acts for */
                            on_behalf_of?: string;
                            /**
                             * Format: date-time
                             * @description When the presented access token expires
                             */
                            expires_at?: string;
                            /** @description The login (token family) the presented token belongs to; a logout ends it */
                            login?: string;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List users */
        get: {
            parameters: {
                query?: {
                    page?: number;
                    per_page?: number;
                    /** @description Exact user name */
                    name?: string;
                    /** @description Users holding this role */
                    role?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            users: {
                                /** @description user_… */
                                id: string;
                                /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                                name: string;
                                roles: string[];
                                /** @description Values roles can refer to, e.g. {"logins": ["ubuntu"]} */
                                traits: {
                                    [key: string]: string[];
                                };
                                status: "active" | "suspended";
                                /** @description The single sign-on connector this user signs in through; its roles are then what the provider maps, set at every sign-in */
                                auth?: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                updated_at: string;
                            }[];
                            pagination: {
                                total: number;
                                page: number;
                                per_page: number;
                            };
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Create a user */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                        name: string;
                        /** @default [] */
                        roles?: string[];
                        /** @description Values roles can refer to, e.g. {"logins": ["ubuntu"]} */
                        traits?: {
                            [key: string]: string[];
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        Location: components["headers"]["Location"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description user_… */
                            id: string;
                            /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                            name: string;
                            roles: string[];
                            /** @description Values roles can refer to, e.g. {"logins": ["ubuntu"]} */
                            traits: {
                                [key: string]: string[];
                            };
                            status: "active" | "suspended";
                            /** @description The single sign-on connector this user signs in through; its roles are then what the provider maps, set at every sign-in */
                            auth?: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            updated_at: string;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a user */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The user id (user_…) or its name */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        ETag: components["headers"]["ETag"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description user_… */
                            id: string;
                            /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                            name: string;
                            roles: string[];
                            /** @description Values roles can refer to, e.g. {"logins": ["ubuntu"]} */
                            traits: {
                                [key: string]: string[];
                            };
                            status: "active" | "suspended";
                            /** @description The single sign-on connector this user signs in through; its roles are then what the provider maps, set at every sign-in */
                            auth?: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            updated_at: string;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Delete a user, their API keys and tokens; their agents are revoked and their live sessions ended (the answer says which the proxies confirmed) */
        delete: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Change the item only if it is still at this version: the ETag its GET answered. Another version (someone changed it since) is a 412 and nothing is written; absent, the change applies to whatever is current */
                    "if-match"?: string;
                };
                path: {
                    /** @description The user id (user_…) or its name */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description user_… */
                            id: string;
                            /** @description Live sessions ended with the user: its own and its agents' (sess_…) */
                            ended_sessions: string[];
                            /** @description Of ended_sessions, those whose proxy confirmed within 3 s that it ended them; the others are marked terminated and end when their proxy sees it */
                            confirmed_ended_sessions: string[];
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description If-Match does not name the item’s current ETag: someone changed it since it was read, and nothing was written (problem+json) */
                412: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /** Change a user’s roles or traits (you must cover the user as it is and as it becomes) */
        patch: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Change the item only if it is still at this version: the ETag its GET answered. Another version (someone changed it since) is a 412 and nothing is written; absent, the change applies to whatever is current */
                    "if-match"?: string;
                };
                path: {
                    /** @description The user id (user_…) or its name */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        roles?: string[];
                        /** @description Values roles can refer to, e.g. {"logins": ["ubuntu"]} */
                        traits?: {
                            [key: string]: string[];
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description user_… */
                            id: string;
                            /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                            name: string;
                            roles: string[];
                            /** @description Values roles can refer to, e.g. {"logins": ["ubuntu"]} */
                            traits: {
                                [key: string]: string[];
                            };
                            status: "active" | "suspended";
                            /** @description The single sign-on connector this user signs in through; its roles are then what the provider maps, set at every sign-in */
                            auth?: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            updated_at: string;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description If-Match does not name the item’s current ETag: someone changed it since it was read, and nothing was written (problem+json) */
                412: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/users/{id}/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a user's API keys (metadata only) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The user id (user_…) or its name */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            api_keys: {
                                id: string;
                                name: string;
                                /** @description The first characters of the key, to tell keys apart */
                                hint: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                created_at: string;
                                expires_at: string | null;
                                /** @description Who created it: a user, an agent, or Gatehouse itself (system) */
                                created_by: {
                                    /** @description user | agent | system */
                                    kind: string;
                                    id?: string;
                                } | null;
                            }[];
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Create an API key for a user (the secret is shown once) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The user id (user_…) or its name */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        /** @default default */
                        name?: string;
                        /** @description Lifetime in seconds; none means no expiry */
                        ttl?: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            id: string;
                            name: string;
                            /** @description The first characters of the key, to tell keys apart */
                            hint: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            expires_at: string | null;
                            /** @description Who created it: a user, an agent, or Gatehouse itself (system) */
                            created_by: {
                                /** @description user | agent | system */
                                kind: string;
                                id?: string;
                            } | null;
                            /** @description The secret, shown only in this response */
                            api_key: string;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{id}/api-keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete an API key and revoke the tokens issued from it */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The user id (user_…) or its name */
                    id: string;
                    /** @description key_… */
                    key_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/me/ssh-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Your SSH public keys */
        get: {
            parameters: {
                query?: {
                    page?: number;
                    per_page?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            ssh_keys: {
                                /** @description sshkey_… */
                                id: string;
                                principal: {
                                    kind: "user" | "agent";
                                    id: string;
                                };
                                type: "ssh-ed25519" | "ecdsa-sha2-nistp256" | "ecdsa-sha2-nistp384" | "ecdsa-sha2-nistp521" | "ssh-rsa";
                                /** @description SHA256:… as ssh-keygen -l prints it */
                                fingerprint: string;
                                comment: string;
                                name: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                created_at: string;
                                /** @description Who created it: a user, an agent, or Gatehouse itself (system) */
                                created_by: {
                                    /** @description user | agent | system */
                                    kind: string;
                                    id?: string;
                                } | null;
                            }[];
                            pagination: {
                                total: number;
                                page: number;
                                per_page: number;
                            };
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Register an SSH public key of yours (ed25519, ecdsa, rsa ≥ 2048): ssh through the proxy with it */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description One OpenSSH public key line, e.g. "ssh-ed25519 AAAA… comment" (ssh-ed25519, ecdsa-sha2-nistp256, ecdsa-sha2-nistp384, ecdsa-sha2-nistp521, ssh-rsa; RSA ≥ 2048 bits) */
                        public_key: string;
                        name?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description sshkey_… */
                            id: string;
                            principal: {
                                kind: "user" | "agent";
                                id: string;
                            };
                            type: "ssh-ed25519" | "ecdsa-sha2-nistp256" | "ecdsa-sha2-nistp384" | "ecdsa-sha2-nistp521" | "ssh-rsa";
                            /** @description SHA256:… as ssh-keygen -l prints it */
                            fingerprint: string;
                            comment: string;
                            name: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            /** @description Who created it: a user, an agent, or Gatehouse itself (system) */
                            created_by: {
                                /** @description user | agent | system */
                                kind: string;
                                id?: string;
                            } | null;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/me/ssh-keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove an SSH public key of yours (sessions it opened end) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description sshkey_… */
                    key_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/me/api-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Your API keys (metadata only) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            api_keys: {
                                id: string;
                                name: string;
                                /** @description The first characters of the key, to tell keys apart */
                                hint: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                created_at: string;
                                expires_at: string | null;
                                /** @description Who created it: a user, an agent, or Gatehouse itself (system) */
                                created_by: {
                                    /** @description user | agent | system */
                                    kind: string;
                                    id?: string;
                                } | null;
                            }[];
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Create an API key of yours, within your own rights (the secret is shown once) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        /** @default default */
                        name?: string;
                        /** @description Lifetime in seconds; none means no expiry */
                        ttl?: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            id: string;
                            name: string;
                            /** @description The first characters of the key, to tell keys apart */
                            hint: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            expires_at: string | null;
                            /** @description Who created it: a user, an agent, or Gatehouse itself (system) */
                            created_by: {
                                /** @description user | agent | system */
                                kind: string;
                                id?: string;
                            } | null;
                            /** @description The secret, shown only in this response */
                            api_key: string;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/me/api-keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Delete an API key of yours and revoke the tokens issued from it */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description key_… */
                    key_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/me/logins": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Your live logins: how each began (API key, single sign-on, passkey), from where, and when */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            logins: {
                                /** @description A login (token family) id */
                                id: string;
                                /** @description The first factor: an API key, a single sign-on, a passkey (unknown: a login from before this was kept) */
                                via: "api_key" | "sso" | "passkey" | "unknown";
                                /** @description The address the login came from */
                                address?: string;
                                /** @description The single sign-on connector */
                                connector?: string;
                                /** @description The API key it was made with */
                                api_key_id?: string;
                                /** @description A console sign-in (else the API or the command line) */
                                console: boolean;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                started_at: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                last_refreshed_at: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                expires_at: string;
                                /** @description Waiting for its second factor: it opens nothing yet */
                                pending: boolean;
                                /** @description The login this request came with */
                                current: boolean;
                            }[];
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Sign out everywhere: every login of yours ends, this one included */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/me/logins/{login_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** End one login of yours: its access and refresh tokens are revoked at once */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description A login (token family) id */
                    login_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/me/access": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Your effective access: every resource you reach and as whom (logins, database users and names, Kubernetes users and groups), with the role that grants each */
        get: {
            parameters: {
                query?: {
                    kind?: "database" | "server" | "app" | "kube_cluster";
                    /** @description Only this resource (id or name) */
                    resource?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            principal: {
                                kind: "user" | "agent";
                                id: string;
                                name: string;
                            };
                            /** @description False when the principal may not act now (suspended, revoked): it reaches nothing */
                            active: boolean;
                            resources: {
                                id: string;
                                kind: "database" | "server" | "app" | "kube_cluster";
                                name: string;
                                labels: {
                                    [key: string]: string;
                                };
                                address?: string;
                                protocol?: string;
                                uri?: string;
                                /** @description Apps: where the web listener serves the app (what a browser opens) */
                                public_url?: string;
                                /** @description MCP apps (protocol mcp): the URL an MCP client uses, on the app host */
                                mcp_url?: string;
                                /** @description Servers: the logins (literal POSIX names) */
                                logins: string[];
                                /** @description Databases: the database users (values or * globs) */
                                db_users: string[];
                                /** @description Databases: the database names (values or * globs) */
                                db_names: string[];
                                /** @description Kubernetes clusters: the users the proxy impersonates */
                                kube_users: string[];
                                /** @description Kubernetes clusters: the groups the proxy impersonates */
                                kube_groups: string[];
                                /** @description Per role that selects the resource: as whom it lets the principal connect (a role is an allow unit) */
                                grants: {
                                    /** @description The role that grants these values */
                                    role: string;
                                    /** @description Servers: the logins (literal POSIX names) */
                                    logins: string[];
                                    /** @description Databases: the database users (values or * globs) */
                                    db_users: string[];
                                    /** @description Databases: the database names (values or * globs) */
                                    db_names: string[];
                                    /** @description Kubernetes clusters: the users the proxy impersonates */
                                    kube_users: string[];
                                    /** @description Kubernetes clusters: the groups the proxy impersonates */
                                    kube_groups: string[];
                                }[];
                            }[];
                            /** @description Where people connect (the proxies’ public addresses, when running) */
                            proxy: {
                                ssh?: {
                                    host: string;
                                    port: number;
                                };
                                postgres?: {
                                    host: string;
                                    port: number;
                                };
                                /** @description The Kubernetes proxy’s URL */
                                kubernetes?: string;
                            };
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{id}/access": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A user's effective access, per role (yours, or anyone's with users:read) */
        get: {
            parameters: {
                query?: {
                    kind?: "database" | "server" | "app" | "kube_cluster";
                    /** @description Only this resource (id or name) */
                    resource?: string;
                };
                header?: never;
                path: {
                    /** @description The user id (user_…) or its name */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            principal: {
                                kind: "user" | "agent";
                                id: string;
                                name: string;
                            };
                            /** @description False when the principal may not act now (suspended, revoked): it reaches nothing */
                            active: boolean;
                            resources: {
                                id: string;
                                kind: "database" | "server" | "app" | "kube_cluster";
                                name: string;
                                labels: {
                                    [key: string]: string;
                                };
                                address?: string;
                                protocol?: string;
                                uri?: string;
                                /** @description Apps: where the web listener serves the app (what a browser opens) */
                                public_url?: string;
                                /** @description MCP apps (protocol mcp): the URL an MCP client uses, on the app host */
                                mcp_url?: string;
                                /** @description Servers: the logins (literal POSIX names) */
                                logins: string[];
                                /** @description Databases: the database users (values or * globs) */
                                db_users: string[];
                                /** @description Databases: the database names (values or * globs) */
                                db_names: string[];
                                /** @description Kubernetes clusters: the users the proxy impersonates */
                                kube_users: string[];
                                /** @description Kubernetes clusters: the groups the proxy impersonates */
                                kube_groups: string[];
                                /** @description Per role that selects the resource: as whom it lets the principal connect (a role is an allow unit) */
                                grants: {
                                    /** @description The role that grants these values */
                                    role: string;
                                    /** @description Servers: the logins (literal POSIX names) */
                                    logins: string[];
                                    /** @description Databases: the database users (values or * globs) */
                                    db_users: string[];
                                    /** @description Databases: the database names (values or * globs) */
                                    db_names: string[];
                                    /** @description Kubernetes clusters: the users the proxy impersonates */
                                    kube_users: string[];
                                    /** @description Kubernetes clusters: the groups the proxy impersonates */
                                    kube_groups: string[];
                                }[];
                            }[];
                            /** @description Where people connect (the proxies’ public addresses, when running) */
                            proxy: {
                                ssh?: {
                                    host: string;
                                    port: number;
                                };
                                postgres?: {
                                    host: string;
                                    port: number;
                                };
                                /** @description The Kubernetes proxy’s URL */
                                kubernetes?: string;
                            };
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{id}/access": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** An agent's effective access (its roles within its owner's), per role (its own, or any with agents:read) */
        get: {
            parameters: {
                query?: {
                    kind?: "database" | "server" | "app" | "kube_cluster";
                    /** @description Only this resource (id or name) */
                    resource?: string;
                };
                header?: never;
                path: {
                    /** @description agent_… */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            principal: {
                                kind: "user" | "agent";
                                id: string;
                                name: string;
                            };
                            /** @description False when the principal may not act now (suspended, revoked): it reaches nothing */
                            active: boolean;
                            resources: {
                                id: string;
                                kind: "database" | "server" | "app" | "kube_cluster";
                                name: string;
                                labels: {
                                    [key: string]: string;
                                };
                                address?: string;
                                protocol?: string;
                                uri?: string;
                                /** @description Apps: where the web listener serves the app (what a browser opens) */
                                public_url?: string;
                                /** @description MCP apps (protocol mcp): the URL an MCP client uses, on the app host */
                                mcp_url?: string;
                                /** @description Servers: the logins (literal POSIX names) */
                                logins: string[];
                                /** @description Databases: the database users (values or * globs) */
                                db_users: string[];
                                /** @description Databases: the database names (values or * globs) */
                                db_names: string[];
                                /** @description Kubernetes clusters: the users the proxy impersonates */
                                kube_users: string[];
                                /** @description Kubernetes clusters: the groups the proxy impersonates */
                                kube_groups: string[];
                                /** @description Per role that selects the resource: as whom it lets the principal connect (a role is an allow unit) */
                                grants: {
                                    /** @description The role that grants these values */
                                    role: string;
                                    /** @description Servers: the logins (literal POSIX names) */
                                    logins: string[];
                                    /** @description Databases: the database users (values or * globs) */
                                    db_users: string[];
                                    /** @description Databases: the database names (values or * globs) */
                                    db_names: string[];
                                    /** @description Kubernetes clusters: the users the proxy impersonates */
                                    kube_users: string[];
                                    /** @description Kubernetes clusters: the groups the proxy impersonates */
                                    kube_groups: string[];
                                }[];
                            }[];
                            /** @description Where people connect (the proxies’ public addresses, when running) */
                            proxy: {
                                ssh?: {
                                    host: string;
                                    port: number;
                                };
                                postgres?: {
                                    host: string;
                                    port: number;
                                };
                                /** @description The Kubernetes proxy’s URL */
                                kubernetes?: string;
                            };
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/roles": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List roles */
        get: {
            parameters: {
                query?: {
                    page?: number;
                    per_page?: number;
                    name?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            roles: {
                                id: string;
                                /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                                name: string;
                                description: string;
                                builtin: boolean;
                                allow: {
                                    rules?: {
                                        resources: ("users" | "roles" | "resources" | "agents" | "sessions" | "recordings" | "events" | "webhooks" | "tokens" | "cluster" | "connectors" | "*")[];
                                        verbs: ("list" | "read" | "create" | "update" | "delete" | "*")[];
                                    }[];
                                    resources?: {
                                        kinds: ("server" | "database" | "app" | "kube_cluster" | "*")[];
                                        /** @description Every label must match; values may use * globs; {"*": "*"} matches anything */
                                        labels?: {
                                            [key: string]: string;
                                        };
                                    }[];
                                    logins?: string[];
                                    db_users?: string[];
                                    db_names?: string[];
                                    kube_groups?: string[];
                                    kube_users?: string[];
                                    kube_resources?: {
                                        /** @description The API resource as in the URL (pods, deployments, namespaces); * globs */
                                        kind: string;
                                        /** @description Namespace glob (default *) */
                                        namespace?: string;
                                        /** @description Object name glob (default *) */
                                        name?: string;
                                        verbs: ("get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "deletecollection" | "exec" | "portforward" | "*")[];
                                    }[];
                                    /** @description Inside the apps this role selects: the requests allowed (or denied); unset: every request */
                                    app_rules?: {
                                        methods: string[];
                                        paths: string[];
                                    }[];
                                    mcp_tools?: string[];
                                    mcp_tool_arguments?: {
                                        /** @description Tool name glob */
                                        tool: string;
                                        /** @description A JSON Schema 2020-12 the call's arguments must satisfy (checked when the role is saved) */
                                        schema: {
                                            [key: string]: unknown;
                                        };
                                    }[];
                                    /** @description MCP resources (URI globs) listed, read and subscribed to on the MCP servers this role selects; deny wins; unset: none */
                                    mcp_resources?: string[];
                                    /** @description MCP prompts (name globs) listed and got on the MCP servers this role selects; deny wins; unset: none */
                                    mcp_prompts?: string[];
                                };
                                deny: {
                                    rules?: {
                                        resources: ("users" | "roles" | "resources" | "agents" | "sessions" | "recordings" | "events" | "webhooks" | "tokens" | "cluster" | "connectors" | "*")[];
                                        verbs: ("list" | "read" | "create" | "update" | "delete" | "*")[];
                                    }[];
                                    resources?: {
                                        kinds: ("server" | "database" | "app" | "kube_cluster" | "*")[];
                                        /** @description Every label must match; values may use * globs; {"*": "*"} matches anything */
                                        labels?: {
                                            [key: string]: string;
                                        };
                                    }[];
                                    logins?: string[];
                                    db_users?: string[];
                                    db_names?: string[];
                                    kube_groups?: string[];
                                    kube_users?: string[];
                                    kube_resources?: {
                                        /** @description The API resource as in the URL (pods, deployments, namespaces); * globs */
                                        kind: string;
                                        /** @description Namespace glob (default *) */
                                        namespace?: string;
                                        /** @description Object name glob (default *) */
                                        name?: string;
                                        verbs: ("get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "deletecollection" | "exec" | "portforward" | "*")[];
                                    }[];
                                    /** @description Inside the apps this role selects: the requests allowed (or denied); unset: every request */
                                    app_rules?: {
                                        methods: string[];
                                        paths: string[];
                                    }[];
                                    mcp_tools?: string[];
                                    mcp_tool_arguments?: {
                                        /** @description Tool name glob */
                                        tool: string;
                                        /** @description A JSON Schema 2020-12 the call's arguments must satisfy (checked when the role is saved) */
                                        schema: {
                                            [key: string]: unknown;
                                        };
                                    }[];
                                    /** @description MCP resources (URI globs) listed, read and subscribed to on the MCP servers this role selects; deny wins; unset: none */
                                    mcp_resources?: string[];
                                    /** @description MCP prompts (name globs) listed and got on the MCP servers this role selects; deny wins; unset: none */
                                    mcp_prompts?: string[];
                                };
                                options: {
                                    max_session_ttl?: string;
                                    record_session?: "best_effort" | "strict";
                                    record_input?: boolean;
                                    port_forwarding?: boolean;
                                    /** @description Database sessions open with default_transaction_read_only=on; the proxy refuses what would turn it off */
                                    db_read_only?: boolean;
                                    /** @description db.query events carry the statement's bind parameters (extended protocol); off by default, since they carry data */
                                    db_record_parameters?: boolean;
                                    /** @description Console sign-ins (API key or SSO) end with a security key or passkey (WebAuthn); a holder without one registers it first. Any role asking wins */
                                    require_mfa?: boolean;
                                    /** @description A registered discoverable passkey alone signs in to the console; allowed when some role says true and none says false */
                                    mfa_passwordless?: boolean;
                                    mcp_require_approval?: string[];
                                    /** @description mcp.tool.call events carry the call's arguments (otherwise their hash and names only); any role asking wins */
                                    mcp_record_arguments?: boolean;
                                };
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                updated_at: string;
                            }[];
                            pagination: {
                                total: number;
                                page: number;
                                per_page: number;
                            };
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Create a role */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                        name: string;
                        description?: string;
                        allow: {
                            rules?: {
                                resources: ("users" | "roles" | "resources" | "agents" | "sessions" | "recordings" | "events" | "webhooks" | "tokens" | "cluster" | "connectors" | "*")[];
                                verbs: ("list" | "read" | "create" | "update" | "delete" | "*")[];
                            }[];
                            resources?: {
                                kinds: ("server" | "database" | "app" | "kube_cluster" | "*")[];
                                /** @description Every label must match; values may use * globs; {"*": "*"} matches anything */
                                labels?: {
                                    [key: string]: string;
                                };
                            }[];
                            logins?: string[];
                            db_users?: string[];
                            db_names?: string[];
                            kube_groups?: string[];
                            kube_users?: string[];
                            kube_resources?: {
                                /** @description The API resource as in the URL (pods, deployments, namespaces); * globs */
                                kind: string;
                                /** @description Namespace glob (default *) */
                                namespace?: string;
                                /** @description Object name glob (default *) */
                                name?: string;
                                verbs: ("get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "deletecollection" | "exec" | "portforward" | "*")[];
                            }[];
                            /** @description Inside the apps this role selects: the requests allowed (or denied); unset: every request */
                            app_rules?: {
                                methods: string[];
                                paths: string[];
                            }[];
                            mcp_tools?: string[];
                            mcp_tool_arguments?: {
                                /** @description Tool name glob */
                                tool: string;
                                /** @description A JSON Schema 2020-12 the call's arguments must satisfy (checked when the role is saved) */
                                schema: {
                                    [key: string]: unknown;
                                };
                            }[];
                            /** @description MCP resources (URI globs) listed, read and subscribed to on the MCP servers this role selects; deny wins; unset: none */
                            mcp_resources?: string[];
                            /** @description MCP prompts (name globs) listed and got on the MCP servers this role selects; deny wins; unset: none */
                            mcp_prompts?: string[];
                        };
                        deny?: {
                            rules?: {
                                resources: ("users" | "roles" | "resources" | "agents" | "sessions" | "recordings" | "events" | "webhooks" | "tokens" | "cluster" | "connectors" | "*")[];
                                verbs: ("list" | "read" | "create" | "update" | "delete" | "*")[];
                            }[];
                            resources?: {
                                kinds: ("server" | "database" | "app" | "kube_cluster" | "*")[];
                                /** @description Every label must match; values may use * globs; {"*": "*"} matches anything */
                                labels?: {
                                    [key: string]: string;
                                };
                            }[];
                            logins?: string[];
                            db_users?: string[];
                            db_names?: string[];
                            kube_groups?: string[];
                            kube_users?: string[];
                            kube_resources?: {
                                /** @description The API resource as in the URL (pods, deployments, namespaces); * globs */
                                kind: string;
                                /** @description Namespace glob (default *) */
                                namespace?: string;
                                /** @description Object name glob (default *) */
                                name?: string;
                                verbs: ("get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "deletecollection" | "exec" | "portforward" | "*")[];
                            }[];
                            /** @description Inside the apps this role selects: the requests allowed (or denied); unset: every request */
                            app_rules?: {
                                methods: string[];
                                paths: string[];
                            }[];
                            mcp_tools?: string[];
                            mcp_tool_arguments?: {
                                /** @description Tool name glob */
                                tool: string;
                                /** @description A JSON Schema 2020-12 the call's arguments must satisfy (checked when the role is saved) */
                                schema: {
                                    [key: string]: unknown;
                                };
                            }[];
                            /** @description MCP resources (URI globs) listed, read and subscribed to on the MCP servers this role selects; deny wins; unset: none */
                            mcp_resources?: string[];
                            /** @description MCP prompts (name globs) listed and got on the MCP servers this role selects; deny wins; unset: none */
                            mcp_prompts?: string[];
                        };
                        options?: {
                            max_session_ttl?: string;
                            record_session?: "best_effort" | "strict";
                            record_input?: boolean;
                            port_forwarding?: boolean;
                            /** @description Database sessions open with default_transaction_read_only=on; the proxy refuses what would turn it off */
                            db_read_only?: boolean;
                            /** @description db.query events carry the statement's bind parameters (extended protocol); off by default, since they carry data */
                            db_record_parameters?: boolean;
                            /** @description Console sign-ins (API key or SSO) end with a security key or passkey (WebAuthn); a holder without one registers it first. Any role asking wins */
                            require_mfa?: boolean;
                            /** @description A registered discoverable passkey alone signs in to the console; allowed when some role says true and none says false */
                            mfa_passwordless?: boolean;
                            mcp_require_approval?: string[];
                            /** @description mcp.tool.call events carry the call's arguments (otherwise their hash and names only); any role asking wins */
                            mcp_record_arguments?: boolean;
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        Location: components["headers"]["Location"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            id: string;
                            /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                            name: string;
                            description: string;
                            builtin: boolean;
                            allow: {
                                rules?: {
                                    resources: ("users" | "roles" | "resources" | "agents" | "sessions" | "recordings" | "events" | "webhooks" | "tokens" | "cluster" | "connectors" | "*")[];
                                    verbs: ("list" | "read" | "create" | "update" | "delete" | "*")[];
                                }[];
                                resources?: {
                                    kinds: ("server" | "database" | "app" | "kube_cluster" | "*")[];
                                    /** @description Every label must match; values may use * globs; {"*": "*"} matches anything */
                                    labels?: {
                                        [key: string]: string;
                                    };
                                }[];
                                logins?: string[];
                                db_users?: string[];
                                db_names?: string[];
                                kube_groups?: string[];
                                kube_users?: string[];
                                kube_resources?: {
                                    /** @description The API resource as in the URL (pods, deployments, namespaces); * globs */
                                    kind: string;
                                    /** @description Namespace glob (default *) */
                                    namespace?: string;
                                    /** @description Object name glob (default *) */
                                    name?: string;
                                    verbs: ("get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "deletecollection" | "exec" | "portforward" | "*")[];
                                }[];
                                /** @description Inside the apps this role selects: the requests allowed (or denied); unset: every request */
                                app_rules?: {
                                    methods: string[];
                                    paths: string[];
                                }[];
                                mcp_tools?: string[];
                                mcp_tool_arguments?: {
                                    /** @description Tool name glob */
                                    tool: string;
                                    /** @description A JSON Schema 2020-12 the call's arguments must satisfy (checked when the role is saved) */
                                    schema: {
                                        [key: string]: unknown;
                                    };
                                }[];
                                /** @description MCP resources (URI globs) listed, read and subscribed to on the MCP servers this role selects; deny wins; unset: none */
                                mcp_resources?: string[];
                                /** @description MCP prompts (name globs) listed and got on the MCP servers this role selects; deny wins; unset: none */
                                mcp_prompts?: string[];
                            };
                            deny: {
                                rules?: {
                                    resources: ("users" | "roles" | "resources" | "agents" | "sessions" | "recordings" | "events" | "webhooks" | "tokens" | "cluster" | "connectors" | "*")[];
                                    verbs: ("list" | "read" | "create" | "update" | "delete" | "*")[];
                                }[];
                                resources?: {
                                    kinds: ("server" | "database" | "app" | "kube_cluster" | "*")[];
                                    /** @description Every label must match; values may use * globs; {"*": "*"} matches anything */
                                    labels?: {
                                        [key: string]: string;
                                    };
                                }[];
                                logins?: string[];
                                db_users?: string[];
                                db_names?: string[];
                                kube_groups?: string[];
                                kube_users?: string[];
                                kube_resources?: {
                                    /** @description The API resource as in the URL (pods, deployments, namespaces); * globs */
                                    kind: string;
                                    /** @description Namespace glob (default *) */
                                    namespace?: string;
                                    /** @description Object name glob (default *) */
                                    name?: string;
                                    verbs: ("get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "deletecollection" | "exec" | "portforward" | "*")[];
                                }[];
                                /** @description Inside the apps this role selects: the requests allowed (or denied); unset: every request */
                                app_rules?: {
                                    methods: string[];
                                    paths: string[];
                                }[];
                                mcp_tools?: string[];
                                mcp_tool_arguments?: {
                                    /** @description Tool name glob */
                                    tool: string;
                                    /** @description A JSON Schema 2020-12 the call's arguments must satisfy (checked when the role is saved) */
                                    schema: {
                                        [key: string]: unknown;
                                    };
                                }[];
                                /** @description MCP resources (URI globs) listed, read and subscribed to on the MCP servers this role selects; deny wins; unset: none */
                                mcp_resources?: string[];
                                /** @description MCP prompts (name globs) listed and got on the MCP servers this role selects; deny wins; unset: none */
                                mcp_prompts?: string[];
                            };
                            options: {
                                max_session_ttl?: string;
                                record_session?: "best_effort" | "strict";
                                record_input?: boolean;
                                port_forwarding?: boolean;
                                /** @description Database sessions open with default_transaction_read_only=on; the proxy refuses what would turn it off */
                                db_read_only?: boolean;
                                /** @description db.query events carry the statement's bind parameters (extended protocol); off by default, since they carry data */
                                db_record_parameters?: boolean;
                                /** @description Console sign-ins (API key or SSO) end with a security key or passkey (WebAuthn); a holder without one registers it first. Any role asking wins */
                                require_mfa?: boolean;
                                /** @description A registered discoverable passkey alone signs in to the console; allowed when some role says true and none says false */
                                mfa_passwordless?: boolean;
                                mcp_require_approval?: string[];
                                /** @description mcp.tool.call events carry the call's arguments (otherwise their hash and names only); any role asking wins */
                                mcp_record_arguments?: boolean;
                            };
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            updated_at: string;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/roles/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a role by id or name */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The role id (role_…) or its name */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        ETag: components["headers"]["ETag"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            id: string;
                            /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                            name: string;
                            description: string;
                            builtin: boolean;
                            allow: {
                                rules?: {
                                    resources: ("users" | "roles" | "resources" | "agents" | "sessions" | "recordings" | "events" | "webhooks" | "tokens" | "cluster" | "connectors" | "*")[];
                                    verbs: ("list" | "read" | "create" | "update" | "delete" | "*")[];
                                }[];
                                resources?: {
                                    kinds: ("server" | "database" | "app" | "kube_cluster" | "*")[];
                                    /** @description Every label must match; values may use * globs; {"*": "*"} matches anything */
                                    labels?: {
                                        [key: string]: string;
                                    };
                                }[];
                                logins?: string[];
                                db_users?: string[];
                                db_names?: string[];
                                kube_groups?: string[];
                                kube_users?: string[];
                                kube_resources?: {
                                    /** @description The API resource as in the URL (pods, deployments, namespaces); * globs */
                                    kind: string;
                                    /** @description Namespace glob (default *) */
                                    namespace?: string;
                                    /** @description Object name glob (default *) */
                                    name?: string;
                                    verbs: ("get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "deletecollection" | "exec" | "portforward" | "*")[];
                                }[];
                                /** @description Inside the apps this role selects: the requests allowed (or denied); unset: every request */
                                app_rules?: {
                                    methods: string[];
                                    paths: string[];
                                }[];
                                mcp_tools?: string[];
                                mcp_tool_arguments?: {
                                    /** @description Tool name glob */
                                    tool: string;
                                    /** @description A JSON Schema 2020-12 the call's arguments must satisfy (checked when the role is saved) */
                                    schema: {
                                        [key: string]: unknown;
                                    };
                                }[];
                                /** @description MCP resources (URI globs) listed, read and subscribed to on the MCP servers this role selects; deny wins; unset: none */
                                mcp_resources?: string[];
                                /** @description MCP prompts (name globs) listed and got on the MCP servers this role selects; deny wins; unset: none */
                                mcp_prompts?: string[];
                            };
                            deny: {
                                rules?: {
                                    resources: ("users" | "roles" | "resources" | "agents" | "sessions" | "recordings" | "events" | "webhooks" | "tokens" | "cluster" | "connectors" | "*")[];
                                    verbs: ("list" | "read" | "create" | "update" | "delete" | "*")[];
                                }[];
                                resources?: {
                                    kinds: ("server" | "database" | "app" | "kube_cluster" | "*")[];
                                    /** @description Every label must match; values may use * globs; {"*": "*"} matches anything */
                                    labels?: {
                                        [key: string]: string;
                                    };
                                }[];
                                logins?: string[];
                                db_users?: string[];
                                db_names?: string[];
                                kube_groups?: string[];
                                kube_users?: string[];
                                kube_resources?: {
                                    /** @description The API resource as in the URL (pods, deployments, namespaces); * globs */
                                    kind: string;
                                    /** @description Namespace glob (default *) */
                                    namespace?: string;
                                    /** @description Object name glob (default *) */
                                    name?: string;
                                    verbs: ("get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "deletecollection" | "exec" | "portforward" | "*")[];
                                }[];
                                /** @description Inside the apps this role selects: the requests allowed (or denied); unset: every request */
                                app_rules?: {
                                    methods: string[];
                                    paths: string[];
                                }[];
                                mcp_tools?: string[];
                                mcp_tool_arguments?: {
                                    /** @description Tool name glob */
                                    tool: string;
                                    /** @description A JSON Schema 2020-12 the call's arguments must satisfy (checked when the role is saved) */
                                    schema: {
                                        [key: string]: unknown;
                                    };
                                }[];
                                /** @description MCP resources (URI globs) listed, read and subscribed to on the MCP servers this role selects; deny wins; unset: none */
                                mcp_resources?: string[];
                                /** @description MCP prompts (name globs) listed and got on the MCP servers this role selects; deny wins; unset: none */
                                mcp_prompts?: string[];
                            };
                            options: {
                                max_session_ttl?: string;
                                record_session?: "best_effort" | "strict";
                                record_input?: boolean;
                                port_forwarding?: boolean;
                                /** @description Database sessions open with default_transaction_read_only=on; the proxy refuses what would turn it off */
                                db_read_only?: boolean;
                                /** @description db.query events carry the statement's bind parameters (extended protocol); off by default, since they carry data */
                                db_record_parameters?: boolean;
                                /** @description Console sign-ins (API key or SSO) end with a security key or passkey (WebAuthn); a holder without one registers it first. Any role asking wins */
                                require_mfa?: boolean;
                                /** @description A registered discoverable passkey alone signs in to the console; allowed when some role says true and none says false */
                                mfa_passwordless?: boolean;
                                mcp_require_approval?: string[];
                                /** @description mcp.tool.call events carry the call's arguments (otherwise their hash and names only); any role asking wins */
                                mcp_record_arguments?: boolean;
                            };
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            updated_at: string;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        /** Replace a role (built-in roles cannot be changed) */
        put: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Change the item only if it is still at this version: the ETag its GET answered. Another version (someone changed it since) is a 412 and nothing is written; absent, the change applies to whatever is current */
                    "if-match"?: string;
                };
                path: {
                    /** @description The role id (role_…) or its name */
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                        name: string;
                        description?: string;
                        allow: {
                            rules?: {
                                resources: ("users" | "roles" | "resources" | "agents" | "sessions" | "recordings" | "events" | "webhooks" | "tokens" | "cluster" | "connectors" | "*")[];
                                verbs: ("list" | "read" | "create" | "update" | "delete" | "*")[];
                            }[];
                            resources?: {
                                kinds: ("server" | "database" | "app" | "kube_cluster" | "*")[];
                                /** @description Every label must match; values may use * globs; {"*": "*"} matches anything */
                                labels?: {
                                    [key: string]: string;
                                };
                            }[];
                            logins?: string[];
                            db_users?: string[];
                            db_names?: string[];
                            kube_groups?: string[];
                            kube_users?: string[];
                            kube_resources?: {
                                /** @description The API resource as in the URL (pods, deployments, namespaces); * globs */
                                kind: string;
                                /** @description Namespace glob (default *) */
                                namespace?: string;
                                /** @description Object name glob (default *) */
                                name?: string;
                                verbs: ("get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "deletecollection" | "exec" | "portforward" | "*")[];
                            }[];
                            /** @description Inside the apps this role selects: the requests allowed (or denied); unset: every request */
                            app_rules?: {
                                methods: string[];
                                paths: string[];
                            }[];
                            mcp_tools?: string[];
                            mcp_tool_arguments?: {
                                /** @description Tool name glob */
                                tool: string;
                                /** @description A JSON Schema 2020-12 the call's arguments must satisfy (checked when the role is saved) */
                                schema: {
                                    [key: string]: unknown;
                                };
                            }[];
                            /** @description MCP resources (URI globs) listed, read and subscribed to on the MCP servers this role selects; deny wins; unset: none */
                            mcp_resources?: string[];
                            /** @description MCP prompts (name globs) listed and got on the MCP servers this role selects; deny wins; unset: none */
                            mcp_prompts?: string[];
                        };
                        deny?: {
                            rules?: {
                                resources: ("users" | "roles" | "resources" | "agents" | "sessions" | "recordings" | "events" | "webhooks" | "tokens" | "cluster" | "connectors" | "*")[];
                                verbs: ("list" | "read" | "create" | "update" | "delete" | "*")[];
                            }[];
                            resources?: {
                                kinds: ("server" | "database" | "app" | "kube_cluster" | "*")[];
                                /** @description Every label must match; values may use * globs; {"*": "*"} matches anything */
                                labels?: {
                                    [key: string]: string;
                                };
                            }[];
                            logins?: string[];
                            db_users?: string[];
                            db_names?: string[];
                            kube_groups?: string[];
                            kube_users?: string[];
                            kube_resources?: {
                                /** @description The API resource as in the URL (pods, deployments, namespaces); * globs */
                                kind: string;
                                /** @description Namespace glob (default *) */
                                namespace?: string;
                                /** @description Object name glob (default *) */
                                name?: string;
                                verbs: ("get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "deletecollection" | "exec" | "portforward" | "*")[];
                            }[];
                            /** @description Inside the apps this role selects: the requests allowed (or denied); unset: every request */
                            app_rules?: {
                                methods: string[];
                                paths: string[];
                            }[];
                            mcp_tools?: string[];
                            mcp_tool_arguments?: {
                                /** @description Tool name glob */
                                tool: string;
                                /** @description A JSON Schema 2020-12 the call's arguments must satisfy (checked when the role is saved) */
                                schema: {
                                    [key: string]: unknown;
                                };
                            }[];
                            /** @description MCP resources (URI globs) listed, read and subscribed to on the MCP servers this role selects; deny wins; unset: none */
                            mcp_resources?: string[];
                            /** @description MCP prompts (name globs) listed and got on the MCP servers this role selects; deny wins; unset: none */
                            mcp_prompts?: string[];
                        };
                        options?: {
                            max_session_ttl?: string;
                            record_session?: "best_effort" | "strict";
                            record_input?: boolean;
                            port_forwarding?: boolean;
                            /** @description Database sessions open with default_transaction_read_only=on; the proxy refuses what would turn it off */
                            db_read_only?: boolean;
                            /** @description db.query events carry the statement's bind parameters (extended protocol); off by default, since they carry data */
                            db_record_parameters?: boolean;
                            /** @description Console sign-ins (API key or SSO) end with a security key or passkey (WebAuthn); a holder without one registers it first. Any role asking wins */
                            require_mfa?: boolean;
                            /** @description A registered discoverable passkey alone signs in to the console; allowed when some role says true and none says false */
                            mfa_passwordless?: boolean;
                            mcp_require_approval?: string[];
                            /** @description mcp.tool.call events carry the call's arguments (otherwise their hash and names only); any role asking wins */
                            mcp_record_arguments?: boolean;
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            id: string;
                            /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                            name: string;
                            description: string;
                            builtin: boolean;
                            allow: {
                                rules?: {
                                    resources: ("users" | "roles" | "resources" | "agents" | "sessions" | "recordings" | "events" | "webhooks" | "tokens" | "cluster" | "connectors" | "*")[];
                                    verbs: ("list" | "read" | "create" | "update" | "delete" | "*")[];
                                }[];
                                resources?: {
                                    kinds: ("server" | "database" | "app" | "kube_cluster" | "*")[];
                                    /** @description Every label must match; values may use * globs; {"*": "*"} matches anything */
                                    labels?: {
                                        [key: string]: string;
                                    };
                                }[];
                                logins?: string[];
                                db_users?: string[];
                                db_names?: string[];
                                kube_groups?: string[];
                                kube_users?: string[];
                                kube_resources?: {
                                    /** @description The API resource as in the URL (pods, deployments, namespaces); * globs */
                                    kind: string;
                                    /** @description Namespace glob (default *) */
                                    namespace?: string;
                                    /** @description Object name glob (default *) */
                                    name?: string;
                                    verbs: ("get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "deletecollection" | "exec" | "portforward" | "*")[];
                                }[];
                                /** @description Inside the apps this role selects: the requests allowed (or denied); unset: every request */
                                app_rules?: {
                                    methods: string[];
                                    paths: string[];
                                }[];
                                mcp_tools?: string[];
                                mcp_tool_arguments?: {
                                    /** @description Tool name glob */
                                    tool: string;
                                    /** @description A JSON Schema 2020-12 the call's arguments must satisfy (checked when the role is saved) */
                                    schema: {
                                        [key: string]: unknown;
                                    };
                                }[];
                                /** @description MCP resources (URI globs) listed, read and subscribed to on the MCP servers this role selects; deny wins; unset: none */
                                mcp_resources?: string[];
                                /** @description MCP prompts (name globs) listed and got on the MCP servers this role selects; deny wins; unset: none */
                                mcp_prompts?: string[];
                            };
                            deny: {
                                rules?: {
                                    resources: ("users" | "roles" | "resources" | "agents" | "sessions" | "recordings" | "events" | "webhooks" | "tokens" | "cluster" | "connectors" | "*")[];
                                    verbs: ("list" | "read" | "create" | "update" | "delete" | "*")[];
                                }[];
                                resources?: {
                                    kinds: ("server" | "database" | "app" | "kube_cluster" | "*")[];
                                    /** @description Every label must match; values may use * globs; {"*": "*"} matches anything */
                                    labels?: {
                                        [key: string]: string;
                                    };
                                }[];
                                logins?: string[];
                                db_users?: string[];
                                db_names?: string[];
                                kube_groups?: string[];
                                kube_users?: string[];
                                kube_resources?: {
                                    /** @description The API resource as in the URL (pods, deployments, namespaces); * globs */
                                    kind: string;
                                    /** @description Namespace glob (default *) */
                                    namespace?: string;
                                    /** @description Object name glob (default *) */
                                    name?: string;
                                    verbs: ("get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "deletecollection" | "exec" | "portforward" | "*")[];
                                }[];
                                /** @description Inside the apps this role selects: the requests allowed (or denied); unset: every request */
                                app_rules?: {
                                    methods: string[];
                                    paths: string[];
                                }[];
                                mcp_tools?: string[];
                                mcp_tool_arguments?: {
                                    /** @description Tool name glob */
                                    tool: string;
                                    /** @description A JSON Schema 2020-12 the call's arguments must satisfy (checked when the role is saved) */
                                    schema: {
                                        [key: string]: unknown;
                                    };
                                }[];
                                /** @description MCP resources (URI globs) listed, read and subscribed to on the MCP servers this role selects; deny wins; unset: none */
                                mcp_resources?: string[];
                                /** @description MCP prompts (name globs) listed and got on the MCP servers this role selects; deny wins; unset: none */
                                mcp_prompts?: string[];
                            };
                            options: {
                                max_session_ttl?: string;
                                record_session?: "best_effort" | "strict";
                                record_input?: boolean;
                                port_forwarding?: boolean;
                                /** @description Database sessions open with default_transaction_read_only=on; the proxy refuses what would turn it off */
                                db_read_only?: boolean;
                                /** @description db.query events carry the statement's bind parameters (extended protocol); off by default, since they carry data */
                                db_record_parameters?: boolean;
                                /** @description Console sign-ins (API key or SSO) end with a security key or passkey (WebAuthn); a holder without one registers it first. Any role asking wins */
                                require_mfa?: boolean;
                                /** @description A registered discoverable passkey alone signs in to the console; allowed when some role says true and none says false */
                                mfa_passwordless?: boolean;
                                mcp_require_approval?: string[];
                                /** @description mcp.tool.call events carry the call's arguments (otherwise their hash and names only); any role asking wins */
                                mcp_record_arguments?: boolean;
                            };
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            updated_at: string;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description If-Match does not name the item’s current ETag: someone changed it since it was read, and nothing was written (problem+json) */
                412: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        post?: never;
        /** Delete a role (not a built-in one, not one in use) */
        delete: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Change the item only if it is still at this version: the ETag its GET answered. Another version (someone changed it since) is a 412 and nothing is written; absent, the change applies to whatever is current */
                    "if-match"?: string;
                };
                path: {
                    /** @description The role id (role_…) or its name */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description If-Match does not name the item’s current ETag: someone changed it since it was read, and nothing was written (problem+json) */
                412: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/roles/{id}/preview": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Preview a change of a role before saving it: who would gain or lose what (resources, and as whom), as the access checker decides; only principals and resources you may see */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The role id (role_…) or its name */
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                        name: string;
                        description?: string;
                        allow: {
                            rules?: {
                                resources: ("users" | "roles" | "resources" | "agents" | "sessions" | "recordings" | "events" | "webhooks" | "tokens" | "cluster" | "connectors" | "*")[];
                                verbs: ("list" | "read" | "create" | "update" | "delete" | "*")[];
                            }[];
                            resources?: {
                                kinds: ("server" | "database" | "app" | "kube_cluster" | "*")[];
                                /** @description Every label must match; values may use * globs; {"*": "*"} matches anything */
                                labels?: {
                                    [key: string]: string;
                                };
                            }[];
                            logins?: string[];
                            db_users?: string[];
                            db_names?: string[];
                            kube_groups?: string[];
                            kube_users?: string[];
                            kube_resources?: {
                                /** @description The API resource as in the URL (pods, deployments, namespaces); * globs */
                                kind: string;
                                /** @description Namespace glob (default *) */
                                namespace?: string;
                                /** @description Object name glob (default *) */
                                name?: string;
                                verbs: ("get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "deletecollection" | "exec" | "portforward" | "*")[];
                            }[];
                            /** @description Inside the apps this role selects: the requests allowed (or denied); unset: every request */
                            app_rules?: {
                                methods: string[];
                                paths: string[];
                            }[];
                            mcp_tools?: string[];
                            mcp_tool_arguments?: {
                                /** @description Tool name glob */
                                tool: string;
                                /** @description A JSON Schema 2020-12 the call's arguments must satisfy (checked when the role is saved) */
                                schema: {
                                    [key: string]: unknown;
                                };
                            }[];
                            /** @description MCP resources (URI globs) listed, read and subscribed to on the MCP servers this role selects; deny wins; unset: none */
                            mcp_resources?: string[];
                            /** @description MCP prompts (name globs) listed and got on the MCP servers this role selects; deny wins; unset: none */
                            mcp_prompts?: string[];
                        };
                        deny?: {
                            rules?: {
                                resources: ("users" | "roles" | "resources" | "agents" | "sessions" | "recordings" | "events" | "webhooks" | "tokens" | "cluster" | "connectors" | "*")[];
                                verbs: ("list" | "read" | "create" | "update" | "delete" | "*")[];
                            }[];
                            resources?: {
                                kinds: ("server" | "database" | "app" | "kube_cluster" | "*")[];
                                /** @description Every label must match; values may use * globs; {"*": "*"} matches anything */
                                labels?: {
                                    [key: string]: string;
                                };
                            }[];
                            logins?: string[];
                            db_users?: string[];
                            db_names?: string[];
                            kube_groups?: string[];
                            kube_users?: string[];
                            kube_resources?: {
                                /** @description The API resource as in the URL (pods, deployments, namespaces); * globs */
                                kind: string;
                                /** @description Namespace glob (default *) */
                                namespace?: string;
                                /** @description Object name glob (default *) */
                                name?: string;
                                verbs: ("get" | "list" | "watch" | "create" | "update" | "patch" | "delete" | "deletecollection" | "exec" | "portforward" | "*")[];
                            }[];
                            /** @description Inside the apps this role selects: the requests allowed (or denied); unset: every request */
                            app_rules?: {
                                methods: string[];
                                paths: string[];
                            }[];
                            mcp_tools?: string[];
                            mcp_tool_arguments?: {
                                /** @description Tool name glob */
                                tool: string;
                                /** @description A JSON Schema 2020-12 the call's arguments must satisfy (checked when the role is saved) */
                                schema: {
                                    [key: string]: unknown;
                                };
                            }[];
                            /** @description MCP resources (URI globs) listed, read and subscribed to on the MCP servers this role selects; deny wins; unset: none */
                            mcp_resources?: string[];
                            /** @description MCP prompts (name globs) listed and got on the MCP servers this role selects; deny wins; unset: none */
                            mcp_prompts?: string[];
                        };
                        options?: {
                            max_session_ttl?: string;
                            record_session?: "best_effort" | "strict";
                            record_input?: boolean;
                            port_forwarding?: boolean;
                            /** @description Database sessions open with default_transaction_read_only=on; the proxy refuses what would turn it off */
                            db_read_only?: boolean;
                            /** @description db.query events carry the statement's bind parameters (extended protocol); off by default, since they carry data */
                            db_record_parameters?: boolean;
                            /** @description Console sign-ins (API key or SSO) end with a security key or passkey (WebAuthn); a holder without one registers it first. Any role asking wins */
                            require_mfa?: boolean;
                            /** @description A registered discoverable passkey alone signs in to the console; allowed when some role says true and none says false */
                            mfa_passwordless?: boolean;
                            mcp_require_approval?: string[];
                            /** @description mcp.tool.call events carry the call's arguments (otherwise their hash and names only); any role asking wins */
                            mcp_record_arguments?: boolean;
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description The role previewed (by its stored name) */
                            role: string;
                            /** @description Principals the role reaches (holders, and agents of holders) that you may see */
                            principals_checked: number;
                            /** @description Only principals whose access would change, and only resources you may see */
                            principals: {
                                kind: "user" | "agent";
                                id: string;
                                name: string;
                                changes: {
                                    resource: {
                                        id: string;
                                        kind: "database" | "server" | "app" | "kube_cluster";
                                        name: string;
                                    };
                                    /** @description gains: newly reached; loses: no longer reached; changes: as whom changes */
                                    change: "gains" | "loses" | "changes";
                                    gained: {
                                        /** @description Servers: the logins (literal POSIX names) */
                                        logins: string[];
                                        /** @description Databases: the database users (values or * globs) */
                                        db_users: string[];
                                        /** @description Databases: the database names (values or * globs) */
                                        db_names: string[];
                                        /** @description Kubernetes clusters: the users the proxy impersonates */
                                        kube_users: string[];
                                        /** @description Kubernetes clusters: the groups the proxy impersonates */
                                        kube_groups: string[];
                                    };
                                    lost: {
                                        /** @description Servers: the logins (literal POSIX names) */
                                        logins: string[];
                                        /** @description Databases: the database users (values or * globs) */
                                        db_users: string[];
                                        /** @description Databases: the database names (values or * globs) */
                                        db_names: string[];
                                        /** @description Kubernetes clusters: the users the proxy impersonates */
                                        kube_users: string[];
                                        /** @description Kubernetes clusters: the groups the proxy impersonates */
                                        kube_groups: string[];
                                    };
                                }[];
                            }[];
                            /** @description More principals hold the role than one preview walks (500) */
                            truncated: boolean;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/resources": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the databases, servers and apps you may see */
        get: {
            parameters: {
                query?: {
                    page?: number;
                    per_page?: number;
                    /** @description Exact name */
                    name?: string;
                    /** @description key=value; repeat to require several labels */
                    label?: string[];
                    /** @description Text the name, description, address, URI or a label (key=value) contains, any case */
                    search?: string;
                    kind?: "database" | "server" | "app" | "kube_cluster";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            resources: {
                                /** @description db_…, srv_…, app_… or kube_… */
                                id: string;
                                kind: "database" | "server" | "app" | "kube_cluster";
                                /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                                name: string;
                                description: string;
                                /** @description Free-form key/value labels that RBAC selectors match. Keys: 1–63 letters, digits and . _ / -, starting with a letter or digit */
                                labels: {
                                    [key: string]: string;
                                };
                                /** @description host or host:port, port 1–65535 (database, server); https://host:port (kube_cluster: its API server) */
                                address?: string;
                                /** @description Wire protocol: a database's; mcp for an app that is an MCP server (docs/mcp.md) */
                                protocol?: "postgres" | "mysql" | "mongodb" | "redis" | "mcp";
                                /** @description http(s) URL of the app (app only) */
                                uri?: string;
                                /** @description Server only: Gatehouse's public key for this server, to add to the target's authorized_keys */
                                ssh_public_key?: string | null;
                                /** @description Server only: the pinned host key's SHA256 fingerprint */
                                ssh_host_key_fingerprint?: string | null;
                                /** @description How the host key was pinned: given at registration, or seen on first connection; null: not yet */
                                ssh_host_key_pinned?: "registered" | "first_use" | null;
                                kube?: {
                                    credential: "token" | "client_certificate";
                                    /** @description SHA-256 fingerprint of the API server's CA certificate */
                                    ca_fingerprint: string;
                                };
                                db?: {
                                    /** @description verify-full: TLS against the registered CA; off: plain (loopback addresses only) */
                                    tls: "verify-full" | "off";
                                    /** @description SHA-256 fingerprint of the server's CA */
                                    ca_fingerprint?: string;
                                    /** @description Whether a client certificate and key are set */
                                    client_certificate: boolean;
                                    /** @description Database users Gatehouse holds a password for */
                                    password_users: string[];
                                    read_only_login?: {
                                        /** @description The login db_read_only sessions run as */
                                        name: string;
                                        /** @description Whether Gatehouse holds a password for it */
                                        password: boolean;
                                    };
                                };
                                app?: {
                                    /** @description A host name of its own on the web listener, instead of <name>.<apps domain> */
                                    public_addr?: string;
                                    /** @description The CA (PEM) the app's https uri is verified against; verification is always on */
                                    ca_pem?: string;
                                    /** @description Headers the app receives, set per request (replacing the client’s) */
                                    rewrite?: {
                                        headers: {
                                            /** @description A header name (not Host, hop-by-hop, Cookie, X-Forwarded-*) */
                                            name: string;
                                            /** @description Literal text with templates: {{internal.name}}, {{internal.roles}}, {{traits.x}}, {{internal.x}}, {{external.x}} */
                                            value: string;
                                        }[];
                                    };
                                    /** @description The Host the app receives: its uri's host (upstream, the default) or its public host */
                                    host_header?: "upstream" | "public";
                                };
                                /** @description App only: where people and programs reach it through Gatehouse (docs/apps.md) */
                                public_url?: string;
                                mcp?: {
                                    credential: "bearer" | "headers" | "none";
                                    header_names: string[];
                                };
                                /** @description MCP servers only: the URL an MCP client connects to through Gatehouse (docs/mcp.md) */
                                mcp_url?: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                updated_at: string;
                            }[];
                            pagination: {
                                total: number;
                                page: number;
                                per_page: number;
                            };
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Register a database, server or app */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        kind: "database" | "server" | "app" | "kube_cluster";
                        /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                        name: string;
                        description?: string;
                        /** @description Free-form key/value labels that RBAC selectors match. Keys: 1–63 letters, digits and . _ / -, starting with a letter or digit */
                        labels?: {
                            [key: string]: string;
                        };
                        /** @description host or host:port, port 1–65535 (database, server); https://host:port (kube_cluster: its API server) */
                        address?: string;
                        /** @description Wire protocol: a database's; mcp for an app that is an MCP server (docs/mcp.md) */
                        protocol?: "postgres" | "mysql" | "mongodb" | "redis" | "mcp";
                        /** @description http(s) URL of the app (app only) */
                        uri?: string;
                        /** @description Server only: its SSH host key (OpenSSH line); without it the proxy pins the key seen first */
                        ssh_host_key?: string;
                        kube?: {
                            /** @description The API server's CA (PEM); TLS verification is always on */
                            ca_pem: string;
                            /** @description A service-account bearer token */
                            token?: string;
                            /** @description A client certificate (PEM), with client_key_pem, instead of a token */
                            client_cert_pem?: string;
                            /** @description The client certificate’s private key (PEM) */
                            client_key_pem?: string;
                        };
                        /** @description read_only_login: the database login that sessions under the role option db_read_only run as, whatever db_user they ask for. It must hold no write privilege (e.g. granted pg_read_all_data only, PostgreSQL 14+): parsing SQL cannot keep a session read-only, the server must. Without it such sessions are refused */
                        db?: {
                            /** @description The database server's CA (PEM): Gatehouse then connects with TLS and verify-full (the certificate must chain to it and name the address's host). Without it the connection is plain, which only a loopback address allows */
                            ca_pem?: string;
                            /** @description Passwords per database user */
                            users?: {
                                /** @description A database user */
                                name: string;
                                /** @description Its password (SCRAM-SHA-256, MD5 or cleartext, as the server asks) */
                                password: string;
                            }[];
                            read_only_login?: {
                                /** @description The database login (role) name */
                                name: string;
                                /** @description Its password, if the server asks for one (sealed at rest, never answered) */
                                password?: string;
                            };
                            /** @description A client certificate (PEM) to present, with client_key_pem (needs ca_pem) */
                            client_cert_pem?: string;
                            /** @description The client certificate’s private key (PEM) */
                            client_key_pem?: string;
                        };
                        app?: {
                            /** @description A host name of its own on the web listener, instead of <name>.<apps domain> */
                            public_addr?: string;
                            /** @description The CA (PEM) the app's https uri is verified against; verification is always on */
                            ca_pem?: string;
                            /** @description Headers the app receives, set per request (replacing the client’s) */
                            rewrite?: {
                                headers: {
                                    /** @description A header name (not Host, hop-by-hop, Cookie, X-Forwarded-*) */
                                    name: string;
                                    /** @description Literal text with templates: {{internal.name}}, {{internal.roles}}, {{traits.x}}, {{internal.x}}, {{external.x}} */
                                    value: string;
                                }[];
                            };
                            /** @description The Host the app receives: its uri's host (upstream, the default) or its public host */
                            host_header?: "upstream" | "public";
                        };
                        /** @description The MCP server's own credential; the client's Gatehouse token never reaches the server */
                        mcp?: {
                            /** @description Sent as Authorization: Bearer <token> */
                            bearer_token?: string;
                            /** @description Headers sent on every upstream request (an API key header, …) */
                            headers?: {
                                [key: string]: string;
                            };
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        Location: components["headers"]["Location"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description db_…, srv_…, app_… or kube_… */
                            id: string;
                            kind: "database" | "server" | "app" | "kube_cluster";
                            /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                            name: string;
                            description: string;
                            /** @description Free-form key/value labels that RBAC selectors match. Keys: 1–63 letters, digits and . _ / -, starting with a letter or digit */
                            labels: {
                                [key: string]: string;
                            };
                            /** @description host or host:port, port 1–65535 (database, server); https://host:port (kube_cluster: its API server) */
                            address?: string;
                            /** @description Wire protocol: a database's; mcp for an app that is an MCP server (docs/mcp.md) */
                            protocol?: "postgres" | "mysql" | "mongodb" | "redis" | "mcp";
                            /** @description http(s) URL of the app (app only) */
                            uri?: string;
                            /** @description Server only: Gatehouse's public key for this server, to add to the target's authorized_keys */
                            ssh_public_key?: string | null;
                            /** @description Server only: the pinned host key's SHA256 fingerprint */
                            ssh_host_key_fingerprint?: string | null;
                            /** @description How the host key was pinned: given at registration, or seen on first connection; null: not yet */
                            ssh_host_key_pinned?: "registered" | "first_use" | null;
                            kube?: {
                                credential: "token" | "client_certificate";
                                /** @description SHA-256 fingerprint of the API server's CA certificate */
                                ca_fingerprint: string;
                            };
                            db?: {
                                /** @description verify-full: TLS against the registered CA; off: plain (loopback addresses only) */
                                tls: "verify-full" | "off";
                                /** @description SHA-256 fingerprint of the server's CA */
                                ca_fingerprint?: string;
                                /** @description Whether a client certificate and key are set */
                                client_certificate: boolean;
                                /** @description Database users Gatehouse holds a password for */
                                password_users: string[];
                                read_only_login?: {
                                    /** @description The login db_read_only sessions run as */
                                    name: string;
                                    /** @description Whether Gatehouse holds a password for it */
                                    password: boolean;
                                };
                            };
                            app?: {
                                /** @description A host name of its own on the web listener, instead of <name>.<apps domain> */
                                public_addr?: string;
                                /** @description The CA (PEM) the app's https uri is verified against; verification is always on */
                                ca_pem?: string;
                                /** @description Headers the app receives, set per request (replacing the client’s) */
                                rewrite?: {
                                    headers: {
                                        /** @description A header name (not Host, hop-by-hop, Cookie, X-Forwarded-*) */
                                        name: string;
                                        /** @description Literal text with templates: {{internal.name}}, {{internal.roles}}, {{traits.x}}, {{internal.x}}, {{external.x}} */
                                        value: string;
                                    }[];
                                };
                                /** @description The Host the app receives: its uri's host (upstream, the default) or its public host */
                                host_header?: "upstream" | "public";
                            };
                            /** @description App only: where people and programs reach it through Gatehouse (docs/apps.md) */
                            public_url?: string;
                            mcp?: {
                                credential: "bearer" | "headers" | "none";
                                header_names: string[];
                            };
                            /** @description MCP servers only: the URL an MCP client connects to through Gatehouse (docs/mcp.md) */
                            mcp_url?: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            updated_at: string;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/databases": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the databases you may see */
        get: {
            parameters: {
                query?: {
                    page?: number;
                    per_page?: number;
                    /** @description Exact name */
                    name?: string;
                    /** @description key=value; repeat to require several labels */
                    label?: string[];
                    /** @description Text the name, description, address, URI or a label (key=value) contains, any case */
                    search?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            databases: {
                                /** @description db_…, srv_…, app_… or kube_… */
                                id: string;
                                kind: "database" | "server" | "app" | "kube_cluster";
                                /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                                name: string;
                                description: string;
                                /** @description Free-form key/value labels that RBAC selectors match. Keys: 1–63 letters, digits and . _ / -, starting with a letter or digit */
                                labels: {
                                    [key: string]: string;
                                };
                                /** @description host or host:port, port 1–65535 (database, server); https://host:port (kube_cluster: its API server) */
                                address?: string;
                                /** @description Wire protocol: a database's; mcp for an app that is an MCP server (docs/mcp.md) */
                                protocol?: "postgres" | "mysql" | "mongodb" | "redis" | "mcp";
                                /** @description http(s) URL of the app (app only) */
                                uri?: string;
                                /** @description Server only: Gatehouse's public key for this server, to add to the target's authorized_keys */
                                ssh_public_key?: string | null;
                                /** @description Server only: the pinned host key's SHA256 fingerprint */
                                ssh_host_key_fingerprint?: string | null;
                                /** @description How the host key was pinned: given at registration, or seen on first connection; null: not yet */
                                ssh_host_key_pinned?: "registered" | "first_use" | null;
                                kube?: {
                                    credential: "token" | "client_certificate";
                                    /** @description SHA-256 fingerprint of the API server's CA certificate */
                                    ca_fingerprint: string;
                                };
                                db?: {
                                    /** @description verify-full: TLS against the registered CA; off: plain (loopback addresses only) */
                                    tls: "verify-full" | "off";
                                    /** @description SHA-256 fingerprint of the server's CA */
                                    ca_fingerprint?: string;
                                    /** @description Whether a client certificate and key are set */
                                    client_certificate: boolean;
                                    /** @description Database users Gatehouse holds a password for */
                                    password_users: string[];
                                    read_only_login?: {
                                        /** @description The login db_read_only sessions run as */
                                        name: string;
                                        /** @description Whether Gatehouse holds a password for it */
                                        password: boolean;
                                    };
                                };
                                app?: {
                                    /** @description A host name of its own on the web listener, instead of <name>.<apps domain> */
                                    public_addr?: string;
                                    /** @description The CA (PEM) the app's https uri is verified against; verification is always on */
                                    ca_pem?: string;
                                    /** @description Headers the app receives, set per request (replacing the client’s) */
                                    rewrite?: {
                                        headers: {
                                            /** @description A header name (not Host, hop-by-hop, Cookie, X-Forwarded-*) */
                                            name: string;
                                            /** @description Literal text with templates: {{internal.name}}, {{internal.roles}}, {{traits.x}}, {{internal.x}}, {{external.x}} */
                                            value: string;
                                        }[];
                                    };
                                    /** @description The Host the app receives: its uri's host (upstream, the default) or its public host */
                                    host_header?: "upstream" | "public";
                                };
                                /** @description App only: where people and programs reach it through Gatehouse (docs/apps.md) */
                                public_url?: string;
                                mcp?: {
                                    credential: "bearer" | "headers" | "none";
                                    header_names: string[];
                                };
                                /** @description MCP servers only: the URL an MCP client connects to through Gatehouse (docs/mcp.md) */
                                mcp_url?: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                updated_at: string;
                            }[];
                            pagination: {
                                total: number;
                                page: number;
                                per_page: number;
                            };
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/servers": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the servers you may see */
        get: {
            parameters: {
                query?: {
                    page?: number;
                    per_page?: number;
                    /** @description Exact name */
                    name?: string;
                    /** @description key=value; repeat to require several labels */
                    label?: string[];
                    /** @description Text the name, description, address, URI or a label (key=value) contains, any case */
                    search?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            servers: {
                                /** @description db_…, srv_…, app_… or kube_… */
                                id: string;
                                kind: "database" | "server" | "app" | "kube_cluster";
                                /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                                name: string;
                                description: string;
                                /** @description Free-form key/value labels that RBAC selectors match. Keys: 1–63 letters, digits and . _ / -, starting with a letter or digit */
                                labels: {
                                    [key: string]: string;
                                };
                                /** @description host or host:port, port 1–65535 (database, server); https://host:port (kube_cluster: its API server) */
                                address?: string;
                                /** @description Wire protocol: a database's; mcp for an app that is an MCP server (docs/mcp.md) */
                                protocol?: "postgres" | "mysql" | "mongodb" | "redis" | "mcp";
                                /** @description http(s) URL of the app (app only) */
                                uri?: string;
                                /** @description Server only: Gatehouse's public key for this server, to add to the target's authorized_keys */
                                ssh_public_key?: string | null;
                                /** @description Server only: the pinned host key's SHA256 fingerprint */
                                ssh_host_key_fingerprint?: string | null;
                                /** @description How the host key was pinned: given at registration, or seen on first connection; null: not yet */
                                ssh_host_key_pinned?: "registered" | "first_use" | null;
                                kube?: {
                                    credential: "token" | "client_certificate";
                                    /** @description SHA-256 fingerprint of the API server's CA certificate */
                                    ca_fingerprint: string;
                                };
                                db?: {
                                    /** @description verify-full: TLS against the registered CA; off: plain (loopback addresses only) */
                                    tls: "verify-full" | "off";
                                    /** @description SHA-256 fingerprint of the server's CA */
                                    ca_fingerprint?: string;
                                    /** @description Whether a client certificate and key are set */
                                    client_certificate: boolean;
                                    /** @description Database users Gatehouse holds a password for */
                                    password_users: string[];
                                    read_only_login?: {
                                        /** @description The login db_read_only sessions run as */
                                        name: string;
                                        /** @description Whether Gatehouse holds a password for it */
                                        password: boolean;
                                    };
                                };
                                app?: {
                                    /** @description A host name of its own on the web listener, instead of <name>.<apps domain> */
                                    public_addr?: string;
                                    /** @description The CA (PEM) the app's https uri is verified against; verification is always on */
                                    ca_pem?: string;
                                    /** @description Headers the app receives, set per request (replacing the client’s) */
                                    rewrite?: {
                                        headers: {
                                            /** @description A header name (not Host, hop-by-hop, Cookie, X-Forwarded-*) */
                                            name: string;
                                            /** @description Literal text with templates: {{internal.name}}, {{internal.roles}}, {{traits.x}}, {{internal.x}}, {{external.x}} */
                                            value: string;
                                        }[];
                                    };
                                    /** @description The Host the app receives: its uri's host (upstream, the default) or its public host */
                                    host_header?: "upstream" | "public";
                                };
                                /** @description App only: where people and programs reach it through Gatehouse (docs/apps.md) */
                                public_url?: string;
                                mcp?: {
                                    credential: "bearer" | "headers" | "none";
                                    header_names: string[];
                                };
                                /** @description MCP servers only: the URL an MCP client connects to through Gatehouse (docs/mcp.md) */
                                mcp_url?: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                updated_at: string;
                            }[];
                            pagination: {
                                total: number;
                                page: number;
                                per_page: number;
                            };
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/apps": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the apps you may see */
        get: {
            parameters: {
                query?: {
                    page?: number;
                    per_page?: number;
                    /** @description Exact name */
                    name?: string;
                    /** @description key=value; repeat to require several labels */
                    label?: string[];
                    /** @description Text the name, description, address, URI or a label (key=value) contains, any case */
                    search?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            apps: {
                                /** @description db_…, srv_…, app_… or kube_… */
                                id: string;
                                kind: "database" | "server" | "app" | "kube_cluster";
                                /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                                name: string;
                                description: string;
                                /** @description Free-form key/value labels that RBAC selectors match. Keys: 1–63 letters, digits and . _ / -, starting with a letter or digit */
                                labels: {
                                    [key: string]: string;
                                };
                                /** @description host or host:port, port 1–65535 (database, server); https://host:port (kube_cluster: its API server) */
                                address?: string;
                                /** @description Wire protocol: a database's; mcp for an app that is an MCP server (docs/mcp.md) */
                                protocol?: "postgres" | "mysql" | "mongodb" | "redis" | "mcp";
                                /** @description http(s) URL of the app (app only) */
                                uri?: string;
                                /** @description Server only: Gatehouse's public key for this server, to add to the target's authorized_keys */
                                ssh_public_key?: string | null;
                                /** @description Server only: the pinned host key's SHA256 fingerprint */
                                ssh_host_key_fingerprint?: string | null;
                                /** @description How the host key was pinned: given at registration, or seen on first connection; null: not yet */
                                ssh_host_key_pinned?: "registered" | "first_use" | null;
                                kube?: {
                                    credential: "token" | "client_certificate";
                                    /** @description SHA-256 fingerprint of the API server's CA certificate */
                                    ca_fingerprint: string;
                                };
                                db?: {
                                    /** @description verify-full: TLS against the registered CA; off: plain (loopback addresses only) */
                                    tls: "verify-full" | "off";
                                    /** @description SHA-256 fingerprint of the server's CA */
                                    ca_fingerprint?: string;
                                    /** @description Whether a client certificate and key are set */
                                    client_certificate: boolean;
                                    /** @description Database users Gatehouse holds a password for */
                                    password_users: string[];
                                    read_only_login?: {
                                        /** @description The login db_read_only sessions run as */
                                        name: string;
                                        /** @description Whether Gatehouse holds a password for it */
                                        password: boolean;
                                    };
                                };
                                app?: {
                                    /** @description A host name of its own on the web listener, instead of <name>.<apps domain> */
                                    public_addr?: string;
                                    /** @description The CA (PEM) the app's https uri is verified against; verification is always on */
                                    ca_pem?: string;
                                    /** @description Headers the app receives, set per request (replacing the client’s) */
                                    rewrite?: {
                                        headers: {
                                            /** @description A header name (not Host, hop-by-hop, Cookie, X-Forwarded-*) */
                                            name: string;
                                            /** @description Literal text with templates: {{internal.name}}, {{internal.roles}}, {{traits.x}}, {{internal.x}}, {{external.x}} */
                                            value: string;
                                        }[];
                                    };
                                    /** @description The Host the app receives: its uri's host (upstream, the default) or its public host */
                                    host_header?: "upstream" | "public";
                                };
                                /** @description App only: where people and programs reach it through Gatehouse (docs/apps.md) */
                                public_url?: string;
                                mcp?: {
                                    credential: "bearer" | "headers" | "none";
                                    header_names: string[];
                                };
                                /** @description MCP servers only: the URL an MCP client connects to through Gatehouse (docs/mcp.md) */
                                mcp_url?: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                updated_at: string;
                            }[];
                            pagination: {
                                total: number;
                                page: number;
                                per_page: number;
                            };
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/resources/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a resource */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description db_…, srv_…, app_… or kube_… */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        ETag: components["headers"]["ETag"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description db_…, srv_…, app_… or kube_… */
                            id: string;
                            kind: "database" | "server" | "app" | "kube_cluster";
                            /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                            name: string;
                            description: string;
                            /** @description Free-form key/value labels that RBAC selectors match. Keys: 1–63 letters, digits and . _ / -, starting with a letter or digit */
                            labels: {
                                [key: string]: string;
                            };
                            /** @description host or host:port, port 1–65535 (database, server); https://host:port (kube_cluster: its API server) */
                            address?: string;
                            /** @description Wire protocol: a database's; mcp for an app that is an MCP server (docs/mcp.md) */
                            protocol?: "postgres" | "mysql" | "mongodb" | "redis" | "mcp";
                            /** @description http(s) URL of the app (app only) */
                            uri?: string;
                            /** @description Server only: Gatehouse's public key for this server, to add to the target's authorized_keys */
                            ssh_public_key?: string | null;
                            /** @description Server only: the pinned host key's SHA256 fingerprint */
                            ssh_host_key_fingerprint?: string | null;
                            /** @description How the host key was pinned: given at registration, or seen on first connection; null: not yet */
                            ssh_host_key_pinned?: "registered" | "first_use" | null;
                            kube?: {
                                credential: "token" | "client_certificate";
                                /** @description SHA-256 fingerprint of the API server's CA certificate */
                                ca_fingerprint: string;
                            };
                            db?: {
                                /** @description verify-full: TLS against the registered CA; off: plain (loopback addresses only) */
                                tls: "verify-full" | "off";
                                /** @description SHA-256 fingerprint of the server's CA */
                                ca_fingerprint?: string;
                                /** @description Whether a client certificate and key are set */
                                client_certificate: boolean;
                                /** @description Database users Gatehouse holds a password for */
                                password_users: string[];
                                read_only_login?: {
                                    /** @description The login db_read_only sessions run as */
                                    name: string;
                                    /** @description Whether Gatehouse holds a password for it */
                                    password: boolean;
                                };
                            };
                            app?: {
                                /** @description A host name of its own on the web listener, instead of <name>.<apps domain> */
                                public_addr?: string;
                                /** @description The CA (PEM) the app's https uri is verified against; verification is always on */
                                ca_pem?: string;
                                /** @description Headers the app receives, set per request (replacing the client’s) */
                                rewrite?: {
                                    headers: {
                                        /** @description A header name (not Host, hop-by-hop, Cookie, X-Forwarded-*) */
                                        name: string;
                                        /** @description Literal text with templates: {{internal.name}}, {{internal.roles}}, {{traits.x}}, {{internal.x}}, {{external.x}} */
                                        value: string;
                                    }[];
                                };
                                /** @description The Host the app receives: its uri's host (upstream, the default) or its public host */
                                host_header?: "upstream" | "public";
                            };
                            /** @description App only: where people and programs reach it through Gatehouse (docs/apps.md) */
                            public_url?: string;
                            mcp?: {
                                credential: "bearer" | "headers" | "none";
                                header_names: string[];
                            };
                            /** @description MCP servers only: the URL an MCP client connects to through Gatehouse (docs/mcp.md) */
                            mcp_url?: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            updated_at: string;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Remove a resource */
        delete: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Change the item only if it is still at this version: the ETag its GET answered. Another version (someone changed it since) is a 412 and nothing is written; absent, the change applies to whatever is current */
                    "if-match"?: string;
                };
                path: {
                    /** @description db_…, srv_…, app_… or kube_… */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description If-Match does not name the item’s current ETag: someone changed it since it was read, and nothing was written (problem+json) */
                412: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /** Change a resource’s description, labels or address (uri, protocol); it must stay visible to you. A new address of a database or cluster holding credentials needs db or kube sent again (409 otherwise) */
        patch: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Change the item only if it is still at this version: the ETag its GET answered. Another version (someone changed it since) is a 412 and nothing is written; absent, the change applies to whatever is current */
                    "if-match"?: string;
                };
                path: {
                    /** @description db_…, srv_…, app_… or kube_… */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        description?: string;
                        /** @description Free-form key/value labels that RBAC selectors match. Keys: 1–63 letters, digits and . _ / -, starting with a letter or digit */
                        labels?: {
                            [key: string]: string;
                        };
                        /** @description host or host:port, port 1–65535 (database, server); https://host:port (kube_cluster: its API server) */
                        address?: string;
                        /** @description Wire protocol: a database's; mcp for an app that is an MCP server (docs/mcp.md) */
                        protocol?: "postgres" | "mysql" | "mongodb" | "redis" | "mcp";
                        /** @description http(s) URL of the app (app only) */
                        uri?: string;
                        /** @description read_only_login: the database login that sessions under the role option db_read_only run as, whatever db_user they ask for. It must hold no write privilege (e.g. granted pg_read_all_data only, PostgreSQL 14+): parsing SQL cannot keep a session read-only, the server must. Without it such sessions are refused */
                        db?: {
                            /** @description The database server's CA (PEM): Gatehouse then connects with TLS and verify-full (the certificate must chain to it and name the address's host). Without it the connection is plain, which only a loopback address allows */
                            ca_pem?: string;
                            /** @description Passwords per database user */
                            users?: {
                                /** @description A database user */
                                name: string;
                                /** @description Its password (SCRAM-SHA-256, MD5 or cleartext, as the server asks) */
                                password: string;
                            }[];
                            read_only_login?: {
                                /** @description The database login (role) name */
                                name: string;
                                /** @description Its password, if the server asks for one (sealed at rest, never answered) */
                                password?: string;
                            };
                            /** @description A client certificate (PEM) to present, with client_key_pem (needs ca_pem) */
                            client_cert_pem?: string;
                            /** @description The client certificate’s private key (PEM) */
                            client_key_pem?: string;
                        };
                        kube?: {
                            /** @description The API server's CA (PEM); TLS verification is always on */
                            ca_pem: string;
                            /** @description A service-account bearer token */
                            token?: string;
                            /** @description A client certificate (PEM), with client_key_pem, instead of a token */
                            client_cert_pem?: string;
                            /** @description The client certificate’s private key (PEM) */
                            client_key_pem?: string;
                        };
                        app?: {
                            /** @description A host name of its own on the web listener, instead of <name>.<apps domain> */
                            public_addr?: string;
                            /** @description The CA (PEM) the app's https uri is verified against; verification is always on */
                            ca_pem?: string;
                            /** @description Headers the app receives, set per request (replacing the client’s) */
                            rewrite?: {
                                headers: {
                                    /** @description A header name (not Host, hop-by-hop, Cookie, X-Forwarded-*) */
                                    name: string;
                                    /** @description Literal text with templates: {{internal.name}}, {{internal.roles}}, {{traits.x}}, {{internal.x}}, {{external.x}} */
                                    value: string;
                                }[];
                            };
                            /** @description The Host the app receives: its uri's host (upstream, the default) or its public host */
                            host_header?: "upstream" | "public";
                        };
                        /** @description The MCP server's own credential; the client's Gatehouse token never reaches the server */
                        mcp?: {
                            /** @description Sent as Authorization: Bearer <token> */
                            bearer_token?: string;
                            /** @description Headers sent on every upstream request (an API key header, …) */
                            headers?: {
                                [key: string]: string;
                            };
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description db_…, srv_…, app_… or kube_… */
                            id: string;
                            kind: "database" | "server" | "app" | "kube_cluster";
                            /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                            name: string;
                            description: string;
                            /** @description Free-form key/value labels that RBAC selectors match. Keys: 1–63 letters, digits and . _ / -, starting with a letter or digit */
                            labels: {
                                [key: string]: string;
                            };
                            /** @description host or host:port, port 1–65535 (database, server); https://host:port (kube_cluster: its API server) */
                            address?: string;
                            /** @description Wire protocol: a database's; mcp for an app that is an MCP server (docs/mcp.md) */
                            protocol?: "postgres" | "mysql" | "mongodb" | "redis" | "mcp";
                            /** @description http(s) URL of the app (app only) */
                            uri?: string;
                            /** @description Server only: Gatehouse's public key for this server, to add to the target's authorized_keys */
                            ssh_public_key?: string | null;
                            /** @description Server only: the pinned host key's SHA256 fingerprint */
                            ssh_host_key_fingerprint?: string | null;
                            /** @description How the host key was pinned: given at registration, or seen on first connection; null: not yet */
                            ssh_host_key_pinned?: "registered" | "first_use" | null;
                            kube?: {
                                credential: "token" | "client_certificate";
                                /** @description SHA-256 fingerprint of the API server's CA certificate */
                                ca_fingerprint: string;
                            };
                            db?: {
                                /** @description verify-full: TLS against the registered CA; off: plain (loopback addresses only) */
                                tls: "verify-full" | "off";
                                /** @description SHA-256 fingerprint of the server's CA */
                                ca_fingerprint?: string;
                                /** @description Whether a client certificate and key are set */
                                client_certificate: boolean;
                                /** @description Database users Gatehouse holds a password for */
                                password_users: string[];
                                read_only_login?: {
                                    /** @description The login db_read_only sessions run as */
                                    name: string;
                                    /** @description Whether Gatehouse holds a password for it */
                                    password: boolean;
                                };
                            };
                            app?: {
                                /** @description A host name of its own on the web listener, instead of <name>.<apps domain> */
                                public_addr?: string;
                                /** @description The CA (PEM) the app's https uri is verified against; verification is always on */
                                ca_pem?: string;
                                /** @description Headers the app receives, set per request (replacing the client’s) */
                                rewrite?: {
                                    headers: {
                                        /** @description A header name (not Host, hop-by-hop, Cookie, X-Forwarded-*) */
                                        name: string;
                                        /** @description Literal text with templates: {{internal.name}}, {{internal.roles}}, {{traits.x}}, {{internal.x}}, {{external.x}} */
                                        value: string;
                                    }[];
                                };
                                /** @description The Host the app receives: its uri's host (upstream, the default) or its public host */
                                host_header?: "upstream" | "public";
                            };
                            /** @description App only: where people and programs reach it through Gatehouse (docs/apps.md) */
                            public_url?: string;
                            mcp?: {
                                credential: "bearer" | "headers" | "none";
                                header_names: string[];
                            };
                            /** @description MCP servers only: the URL an MCP client connects to through Gatehouse (docs/mcp.md) */
                            mcp_url?: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            updated_at: string;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description If-Match does not name the item’s current ETag: someone changed it since it was read, and nothing was written (problem+json) */
                412: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/resources/{id}/kubeconfig": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** A kubeconfig for a Kubernetes cluster you may reach (by id or name): the proxy (pinned to its CA) and a short-lived token of yours (YAML); 404 for a cluster your roles do not reach */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description kube_… id or the cluster’s name */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description kubeconfig (YAML) */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/yaml": string;
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/resources/{id}/ssh-host-key": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Forget a server's pinned SSH host key (after a rebuild); the next connection pins the key it sees */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description srv_… */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List agents */
        get: {
            parameters: {
                query?: {
                    page?: number;
                    per_page?: number;
                    /** @description active ⇄ suspended (reversible); revoked is terminal */
                    status?: "active" | "suspended" | "revoked";
                    owner?: string;
                    name?: string;
                    /** @description key=value; repeat to require several labels */
                    label?: string[];
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            agents: {
                                /** @description agent_ followed by an opaque suffix */
                                id: string;
                                /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                                name: string;
                                /** @description active ⇄ suspended (reversible); revoked is terminal */
                                status: "active" | "suspended" | "revoked";
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                created_at: string;
                                /** @description The accountable user (user_…) */
                                owner: string;
                                roles: string[];
                                description: string;
                                /** @description Free-form key/value labels that RBAC selectors match. Keys: 1–63 letters, digits and . _ / -, starting with a letter or digit */
                                labels: {
                                    [key: string]: string;
                                };
                                max_credential_ttl: number | null;
                                rate_limit: {
                                    requests_per_minute: number | null;
                                    credentials_per_minute: number | null;
                                };
                                /** @description Last request with one of its tokens (±1 s) */
                                last_used_at: string | null;
                                /** @description Who created it: a user, an agent, or Gatehouse itself (system) */
                                created_by: {
                                    /** @description user | agent | system */
                                    kind: string;
                                    id?: string;
                                } | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                updated_at: string;
                            }[];
                            pagination: {
                                total: number;
                                page: number;
                                per_page: number;
                            };
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Create an AI agent */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                        name: string;
                        description?: string;
                        /** @description Free-form key/value labels that RBAC selectors match. Keys: 1–63 letters, digits and . _ / -, starting with a letter or digit */
                        labels?: {
                            [key: string]: string;
                        };
                        /** @default [] */
                        roles?: string[];
                        /** @description Defaults to the caller; another user needs users:update */
                        owner?: string;
                        max_credential_ttl?: number | null;
                        /** @description Per-agent limits; breaching one is a 429 and an agent.rate_limited event */
                        rate_limit?: {
                            requests_per_minute?: number | null;
                            credentials_per_minute?: number | null;
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        Location: components["headers"]["Location"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description agent_ followed by an opaque suffix */
                            id: string;
                            /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                            name: string;
                            /** @description active ⇄ suspended (reversible); revoked is terminal */
                            status: "active" | "suspended" | "revoked";
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            /** @description The accountable user (user_…) */
                            owner: string;
                            roles: string[];
                            description: string;
                            /** @description Free-form key/value labels that RBAC selectors match. Keys: 1–63 letters, digits and . _ / -, starting with a letter or digit */
                            labels: {
                                [key: string]: string;
                            };
                            max_credential_ttl: number | null;
                            rate_limit: {
                                requests_per_minute: number | null;
                                credentials_per_minute: number | null;
                            };
                            /** @description Last request with one of its tokens (±1 s) */
                            last_used_at: string | null;
                            /** @description Who created it: a user, an agent, or Gatehouse itself (system) */
                            created_by: {
                                /** @description user | agent | system */
                                kind: string;
                                id?: string;
                            } | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            updated_at: string;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get one agent */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description agent_… */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        ETag: components["headers"]["ETag"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description agent_ followed by an opaque suffix */
                            id: string;
                            /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                            name: string;
                            /** @description active ⇄ suspended (reversible); revoked is terminal */
                            status: "active" | "suspended" | "revoked";
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            /** @description The accountable user (user_…) */
                            owner: string;
                            roles: string[];
                            description: string;
                            /** @description Free-form key/value labels that RBAC selectors match. Keys: 1–63 letters, digits and . _ / -, starting with a letter or digit */
                            labels: {
                                [key: string]: string;
                            };
                            max_credential_ttl: number | null;
                            rate_limit: {
                                requests_per_minute: number | null;
                                credentials_per_minute: number | null;
                            };
                            /** @description Last request with one of its tokens (±1 s) */
                            last_used_at: string | null;
                            /** @description Who created it: a user, an agent, or Gatehouse itself (system) */
                            created_by: {
                                /** @description user | agent | system */
                                kind: string;
                                id?: string;
                            } | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            updated_at: string;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Revoke everything an agent holds and remove it; answers what was ended */
        delete: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Change the item only if it is still at this version: the ETag its GET answered. Another version (someone changed it since) is a 412 and nothing is written; absent, the change applies to whatever is current */
                    "if-match"?: string;
                };
                path: {
                    /** @description agent_… */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            id: string;
                            /** @description Tokens (access and refresh) revoked by this change */
                            revoked_tokens: number;
                            /** @description Credentials revoked by this change */
                            revoked_credentials: number;
                            /** @description Live sessions ended (sess_…) */
                            ended_sessions: string[];
                            /** @description Of ended_sessions, those whose proxy confirmed within 3 s that it ended them; the others are marked terminated and end when their proxy sees it */
                            confirmed_ended_sessions: string[];
                            /** @description What the agent had created for other users and agents, taken back with it */
                            revoked_issued_for_others: {
                                api_keys: number;
                                ssh_keys: number;
                                credentials: number;
                                /** @description Tokens that came from those API keys and credentials */
                                tokens: number;
                            };
                            /** @description Agents below it (created by it, by those, …) suspended or revoked with it; reactivating it does not reactivate them */
                            ended_agents: string[];
                            /** @description What those agents held and this change ended (included in the totals above) */
                            descendants: {
                                agents: number;
                                credentials: number;
                                tokens: number;
                                sessions: number;
                            };
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description If-Match does not name the item’s current ETag: someone changed it since it was read, and nothing was written (problem+json) */
                412: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /** Change an agent; status suspended or revoked ends every token, credential and session it holds */
        patch: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Change the item only if it is still at this version: the ETag its GET answered. Another version (someone changed it since) is a 412 and nothing is written; absent, the change applies to whatever is current */
                    "if-match"?: string;
                };
                path: {
                    /** @description agent_… */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                        name?: string;
                        description?: string;
                        /** @description Free-form key/value labels that RBAC selectors match. Keys: 1–63 letters, digits and . _ / -, starting with a letter or digit */
                        labels?: {
                            [key: string]: string;
                        };
                        roles?: string[];
                        /** @description active ⇄ suspended (reversible); revoked is terminal */
                        status?: "active" | "suspended" | "revoked";
                        max_credential_ttl?: number | null;
                        /** @description Per-agent limits; breaching one is a 429 and an agent.rate_limited event */
                        rate_limit?: {
                            requests_per_minute?: number | null;
                            credentials_per_minute?: number | null;
                        };
                    };
                };
            };
            responses: {
                /** @description The agent; after a suspension or revocation, also what the kill switch ended */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description agent_ followed by an opaque suffix */
                            id: string;
                            /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                            name: string;
                            /** @description active ⇄ suspended (reversible); revoked is terminal */
                            status: "active" | "suspended" | "revoked";
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            /** @description The accountable user (user_…) */
                            owner: string;
                            roles: string[];
                            description: string;
                            /** @description Free-form key/value labels that RBAC selectors match. Keys: 1–63 letters, digits and . _ / -, starting with a letter or digit */
                            labels: {
                                [key: string]: string;
                            };
                            max_credential_ttl: number | null;
                            rate_limit: {
                                requests_per_minute: number | null;
                                credentials_per_minute: number | null;
                            };
                            /** @description Last request with one of its tokens (±1 s) */
                            last_used_at: string | null;
                            /** @description Who created it: a user, an agent, or Gatehouse itself (system) */
                            created_by: {
                                /** @description user | agent | system */
                                kind: string;
                                id?: string;
                            } | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            updated_at: string;
                            /** @description Tokens (access and refresh) revoked by this change */
                            revoked_tokens?: number;
                            /** @description Credentials revoked by this change */
                            revoked_credentials?: number;
                            /** @description Live sessions ended (sess_…) */
                            ended_sessions?: string[];
                            /** @description Of ended_sessions, those whose proxy confirmed within 3 s that it ended them; the others are marked terminated and end when their proxy sees it */
                            confirmed_ended_sessions?: string[];
                            /** @description What the agent had created for other users and agents, taken back with it */
                            revoked_issued_for_others?: {
                                api_keys: number;
                                ssh_keys: number;
                                credentials: number;
                                /** @description Tokens that came from those API keys and credentials */
                                tokens: number;
                            };
                            /** @description Agents below it (created by it, by those, …) suspended or revoked with it; reactivating it does not reactivate them */
                            ended_agents?: string[];
                            /** @description What those agents held and this change ended (included in the totals above) */
                            descendants?: {
                                agents: number;
                                credentials: number;
                                tokens: number;
                                sessions: number;
                            };
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description If-Match does not name the item’s current ETag: someone changed it since it was read, and nothing was written (problem+json) */
                412: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/agents/{id}/credentials": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List an agent's credentials (metadata only) */
        get: {
            parameters: {
                query?: {
                    page?: number;
                    per_page?: number;
                    /** @description api_key: a key for POST /v1/auth/token; token: a short-lived access token for this API; jwt: a signed JWT for third-party services */
                    type?: "api_key" | "token" | "jwt";
                };
                header?: never;
                path: {
                    /** @description agent_… */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            credentials: {
                                id: string;
                                /** @description api_key: a key for POST /v1/auth/token; token: a short-lived access token for this API; jwt: a signed JWT for third-party services */
                                type: "api_key" | "token" | "jwt";
                                /** @description null: all of the agent's roles */
                                roles: string[] | null;
                                audience: string | null;
                                /** @description The user a delegated credential acts for */
                                on_behalf_of: string | null;
                                /** @description Who created it: a user, an agent, or Gatehouse itself (system) */
                                created_by: {
                                    /** @description user | agent | system */
                                    kind: string;
                                    id?: string;
                                } | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                expires_at: string;
                                last_used_at: string | null;
                                revoked_at: string | null;
                            }[];
                            pagination: {
                                total: number;
                                page: number;
                                per_page: number;
                            };
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Issue a short-lived, scoped credential to an agent: api_key, token or jwt (shown once) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description agent_… */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        /**
                         * @description api_key: a key for POST /v1/auth/token; token: a short-lived access token for this API; jwt: a signed JWT for third-party services
                         * @default token
                         */
                        type?: "api_key" | "token" | "jwt";
                        /** @description Lifetime in seconds; at most the agent's max_credential_ttl and agents.max_credential_ttl; default min(1 h, those) */
                        ttl?: number;
                        /** @description A subset of the agent's roles; default: all of them */
                        roles?: string[];
                        /** @description The service a jwt is for (its aud); required for jwt */
                        audience?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description cred_… */
                            id: string;
                            agent_id: string;
                            /** @description api_key: a key for POST /v1/auth/token; token: a short-lived access token for this API; jwt: a signed JWT for third-party services */
                            type: "api_key" | "token" | "jwt";
                            /** @description The roles the credential carries */
                            roles: string[];
                            audience: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            expires_at: string;
                            /** @description Seconds */
                            expires_in: number;
                            /** @description type api_key: a key for POST /v1/auth/token, shown once */
                            api_key?: string;
                            /** @description type token: a bearer token for this API, shown once */
                            access_token?: string;
                            /** @enum {string} */
                            token_type?: "Bearer";
                            /** @description type jwt: an EdDSA-signed JWT, verifiable with /.well-known/jwks.json */
                            jwt?: string;
                            /** @description type jwt: the id of the signing key */
                            kid?: string;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{id}/credentials/{credential_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Revoke one credential and every token that came from it */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description agent_… */
                    id: string;
                    /** @description cred_… */
                    credential_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            revoked_tokens: number;
                            revoked_credentials?: number;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{id}/delegations": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the users who allow an agent to act for them */
        get: {
            parameters: {
                query?: {
                    page?: number;
                    per_page?: number;
                };
                header?: never;
                path: {
                    /** @description agent_… */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            delegations: {
                                agent_id: string;
                                user_id: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                created_at: string;
                                expires_at: string | null;
                            }[];
                            pagination: {
                                total: number;
                                page: number;
                                per_page: number;
                            };
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Allow an agent to act for you (token exchange, RFC 8693) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description agent_… */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        /** @description The user who allows it; defaults to the caller */
                        user?: string;
                        /** @description Seconds until the consent lapses; default never */
                        ttl?: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            agent_id: string;
                            user_id: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            expires_at: string | null;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{id}/delegations/{user_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Withdraw the consent; every token the agent holds for that user is revoked */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description agent_… */
                    id: string;
                    /** @description user_… */
                    user_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            revoked_tokens: number;
                            revoked_credentials?: number;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/introspect": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Is this token active now? (RFC 7662; a JWT is inactive once its credential or agent is revoked) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description An access token (gha_…) or an agent JWT */
                        token: string;
                    };
                };
            };
            responses: {
                /** @description RFC 7662 token introspection */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description false for anything revoked, expired, unknown or not verifiable */
                            active: boolean;
                            token_type?: "access_token" | "jwt";
                            /** @description The principal; for a delegated token, the user */
                            sub?: string;
                            /** @description Delegated: the agent acting for sub (RFC 8693) */
                            act?: {
                                sub: string;
                            };
                            /** @description Space-separated roles */
                            scope?: string;
                            iss?: string;
                            aud?: string;
                            exp?: number;
                            iat?: number;
                            jti?: string;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{id}/ssh-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the SSH public keys of a user */
        get: {
            parameters: {
                query?: {
                    page?: number;
                    per_page?: number;
                };
                header?: never;
                path: {
                    /** @description The user id (user_…) or its name */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            ssh_keys: {
                                /** @description sshkey_… */
                                id: string;
                                principal: {
                                    kind: "user" | "agent";
                                    id: string;
                                };
                                type: "ssh-ed25519" | "ecdsa-sha2-nistp256" | "ecdsa-sha2-nistp384" | "ecdsa-sha2-nistp521" | "ssh-rsa";
                                /** @description SHA256:… as ssh-keygen -l prints it */
                                fingerprint: string;
                                comment: string;
                                name: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                created_at: string;
                                /** @description Who created it: a user, an agent, or Gatehouse itself (system) */
                                created_by: {
                                    /** @description user | agent | system */
                                    kind: string;
                                    id?: string;
                                } | null;
                            }[];
                            pagination: {
                                total: number;
                                page: number;
                                per_page: number;
                            };
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Register an SSH public key for a user (ed25519, ecdsa, rsa ≥ 2048) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The user id (user_…) or its name */
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description One OpenSSH public key line, e.g. "ssh-ed25519 AAAA… comment" (ssh-ed25519, ecdsa-sha2-nistp256, ecdsa-sha2-nistp384, ecdsa-sha2-nistp521, ssh-rsa; RSA ≥ 2048 bits) */
                        public_key: string;
                        name?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description sshkey_… */
                            id: string;
                            principal: {
                                kind: "user" | "agent";
                                id: string;
                            };
                            type: "ssh-ed25519" | "ecdsa-sha2-nistp256" | "ecdsa-sha2-nistp384" | "ecdsa-sha2-nistp521" | "ssh-rsa";
                            /** @description SHA256:… as ssh-keygen -l prints it */
                            fingerprint: string;
                            comment: string;
                            name: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            /** @description Who created it: a user, an agent, or Gatehouse itself (system) */
                            created_by: {
                                /** @description user | agent | system */
                                kind: string;
                                id?: string;
                            } | null;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/{id}/ssh-keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove an SSH public key */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The user id (user_…) or its name */
                    id: string;
                    /** @description sshkey_… */
                    key_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{id}/ssh-keys": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the SSH public keys of an agent */
        get: {
            parameters: {
                query?: {
                    page?: number;
                    per_page?: number;
                };
                header?: never;
                path: {
                    /** @description agent_… */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            ssh_keys: {
                                /** @description sshkey_… */
                                id: string;
                                principal: {
                                    kind: "user" | "agent";
                                    id: string;
                                };
                                type: "ssh-ed25519" | "ecdsa-sha2-nistp256" | "ecdsa-sha2-nistp384" | "ecdsa-sha2-nistp521" | "ssh-rsa";
                                /** @description SHA256:… as ssh-keygen -l prints it */
                                fingerprint: string;
                                comment: string;
                                name: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                created_at: string;
                                /** @description Who created it: a user, an agent, or Gatehouse itself (system) */
                                created_by: {
                                    /** @description user | agent | system */
                                    kind: string;
                                    id?: string;
                                } | null;
                            }[];
                            pagination: {
                                total: number;
                                page: number;
                                per_page: number;
                            };
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Register an SSH public key for an agent (ed25519, ecdsa, rsa ≥ 2048) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description agent_… */
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description One OpenSSH public key line, e.g. "ssh-ed25519 AAAA… comment" (ssh-ed25519, ecdsa-sha2-nistp256, ecdsa-sha2-nistp384, ecdsa-sha2-nistp521, ssh-rsa; RSA ≥ 2048 bits) */
                        public_key: string;
                        name?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description sshkey_… */
                            id: string;
                            principal: {
                                kind: "user" | "agent";
                                id: string;
                            };
                            type: "ssh-ed25519" | "ecdsa-sha2-nistp256" | "ecdsa-sha2-nistp384" | "ecdsa-sha2-nistp521" | "ssh-rsa";
                            /** @description SHA256:… as ssh-keygen -l prints it */
                            fingerprint: string;
                            comment: string;
                            name: string | null;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            /** @description Who created it: a user, an agent, or Gatehouse itself (system) */
                            created_by: {
                                /** @description user | agent | system */
                                kind: string;
                                id?: string;
                            } | null;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/agents/{id}/ssh-keys/{key_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove an SSH public key */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description agent_… */
                    id: string;
                    /** @description sshkey_… */
                    key_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/me/mfa/devices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List your security keys and passkeys */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            devices: {
                                /** @description mfa_… */
                                id: string;
                                name: string;
                                /** @description The WebAuthn credential id, base64url */
                                credential_id: string;
                                transports: string[];
                                /** @description A passkey: may sign in alone where a role allows it (mfa_passwordless) */
                                discoverable: boolean;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                created_at: string;
                                last_used_at: string | null;
                            }[];
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Register a security key or passkey: the browser’s answer to the options, and a name */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description What the person calls the key, e.g. "YubiKey 5C" or "Laptop passkey" */
                        name: string;
                        response: {
                            /** @description credential id, base64url */
                            id: string;
                            /** @description credential id, base64url */
                            rawId: string;
                            /** @enum {string} */
                            type: "public-key";
                            response: {
                                /** @description clientDataJSON, base64url */
                                clientDataJSON: string;
                                /** @description attestation object, base64url */
                                attestationObject?: string;
                                /** @description authenticator data, base64url */
                                authenticatorData?: string;
                                /** @description signature, base64url */
                                signature?: string;
                                /** @description user handle, base64url */
                                userHandle?: string;
                                /** @description public key, base64url */
                                publicKey?: string;
                                publicKeyAlgorithm?: number;
                                transports?: string[];
                            };
                            authenticatorAttachment?: string;
                            clientExtensionResults: {
                                credProps?: {
                                    rk?: boolean;
                                };
                            } & {
                                [key: string]: unknown;
                            };
                        };
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description mfa_… */
                            id: string;
                            name: string;
                            /** @description The WebAuthn credential id, base64url */
                            credential_id: string;
                            transports: string[];
                            /** @description A passkey: may sign in alone where a role allows it (mfa_passwordless) */
                            discoverable: boolean;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            last_used_at: string | null;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/me/mfa/devices/options": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Start registering a security key: options for navigator.credentials.create() (challenge valid 2 min, once) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Options for navigator.credentials (WebAuthn Level 3 JSON) */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            challenge: string;
                        } & {
                            [key: string]: unknown;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/users/me/mfa/devices/{device_id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove one of your security keys */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description mfa_… */
                    device_id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /** Rename one of your security keys */
        patch: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description mfa_… */
                    device_id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description What the person calls the key, e.g. "YubiKey 5C" or "Laptop passkey" */
                        name: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description mfa_… */
                            id: string;
                            name: string;
                            /** @description The WebAuthn credential id, base64url */
                            credential_id: string;
                            transports: string[];
                            /** @description A passkey: may sign in alone where a role allows it (mfa_passwordless) */
                            discoverable: boolean;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            last_used_at: string | null;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/users/{id}/mfa/devices": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the security keys of a user */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The user id (user_…) or its name */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            devices: {
                                /** @description mfa_… */
                                id: string;
                                name: string;
                                /** @description The WebAuthn credential id, base64url */
                                credential_id: string;
                                transports: string[];
                                /** @description A passkey: may sign in alone where a role allows it (mfa_passwordless) */
                                discoverable: boolean;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                created_at: string;
                                last_used_at: string | null;
                            }[];
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Remove every security key of a user (recovery: they register a new one at their next sign-in) */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description The user id (user_…) or its name */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            removed: number;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/.well-known/jwks.json": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Public keys of agent JWTs (JWKS) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description RFC 7517 JSON Web Key Set: the public keys of agent JWTs */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            keys: {
                                kty: string;
                                crv: string;
                                x: string;
                                kid: string;
                                alg: string;
                                use: string;
                            }[];
                        };
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List webhooks */
        get: {
            parameters: {
                query?: {
                    page?: number;
                    per_page?: number;
                    status?: "active" | "disabled";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            webhooks: {
                                /** @description whk_… */
                                id: string;
                                /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                                name: string;
                                url: string;
                                description: string;
                                event_types: string[];
                                status: "active" | "disabled";
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                updated_at: string;
                                failure: {
                                    /** @description Deliveries that failed after their last retry, since the last success */
                                    consecutive_failures: number;
                                    last_failure_at: string | null;
                                    last_error: string | null;
                                    disabled_at: string | null;
                                };
                                /** @description Who created it: a user, an agent, or Gatehouse itself (system) */
                                created_by: {
                                    /** @description user | agent | system */
                                    kind: string;
                                    id?: string;
                                } | null;
                            }[];
                            pagination: {
                                total: number;
                                page: number;
                                per_page: number;
                            };
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Create a webhook (its signing secret is shown once) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                        name: string;
                        /** @description https URL (http and private addresses only for hosts in webhook_allowed_hosts) */
                        url: string;
                        event_types: string[];
                        description?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        Location: components["headers"]["Location"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description whk_… */
                            id: string;
                            /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                            name: string;
                            url: string;
                            description: string;
                            event_types: string[];
                            status: "active" | "disabled";
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            updated_at: string;
                            failure: {
                                /** @description Deliveries that failed after their last retry, since the last success */
                                consecutive_failures: number;
                                last_failure_at: string | null;
                                last_error: string | null;
                                disabled_at: string | null;
                            };
                            /** @description Who created it: a user, an agent, or Gatehouse itself (system) */
                            created_by: {
                                /** @description user | agent | system */
                                kind: string;
                                id?: string;
                            } | null;
                            /** @description The signing secret (whsec_…, Standard Webhooks), shown only in this response: verify webhook-signature with it */
                            secret: string;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/webhooks/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a webhook */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description whk_… */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        ETag: components["headers"]["ETag"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description whk_… */
                            id: string;
                            /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                            name: string;
                            url: string;
                            description: string;
                            event_types: string[];
                            status: "active" | "disabled";
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            updated_at: string;
                            failure: {
                                /** @description Deliveries that failed after their last retry, since the last success */
                                consecutive_failures: number;
                                last_failure_at: string | null;
                                last_error: string | null;
                                disabled_at: string | null;
                            };
                            /** @description Who created it: a user, an agent, or Gatehouse itself (system) */
                            created_by: {
                                /** @description user | agent | system */
                                kind: string;
                                id?: string;
                            } | null;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Delete a webhook and its delivery records */
        delete: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Change the item only if it is still at this version: the ETag its GET answered. Another version (someone changed it since) is a 412 and nothing is written; absent, the change applies to whatever is current */
                    "if-match"?: string;
                };
                path: {
                    /** @description whk_… */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description If-Match does not name the item’s current ETag: someone changed it since it was read, and nothing was written (problem+json) */
                412: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        /** Change a webhook’s URL, event types, description or status (the name and signing secret stay); a new URL or event types, or turning it back on, needs the right to read audit events and makes you the one it lives on */
        patch: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Change the item only if it is still at this version: the ETag its GET answered. Another version (someone changed it since) is a 412 and nothing is written; absent, the change applies to whatever is current */
                    "if-match"?: string;
                };
                path: {
                    /** @description whk_… */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: {
                content: {
                    "application/json": {
                        /** @description https URL (http and private addresses only for hosts in webhook_allowed_hosts) */
                        url?: string;
                        event_types?: string[];
                        description?: string;
                        status?: "active" | "disabled";
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description whk_… */
                            id: string;
                            /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                            name: string;
                            url: string;
                            description: string;
                            event_types: string[];
                            status: "active" | "disabled";
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            updated_at: string;
                            failure: {
                                /** @description Deliveries that failed after their last retry, since the last success */
                                consecutive_failures: number;
                                last_failure_at: string | null;
                                last_error: string | null;
                                disabled_at: string | null;
                            };
                            /** @description Who created it: a user, an agent, or Gatehouse itself (system) */
                            created_by: {
                                /** @description user | agent | system */
                                kind: string;
                                id?: string;
                            } | null;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description If-Match does not name the item’s current ETag: someone changed it since it was read, and nothing was written (problem+json) */
                412: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        trace?: never;
    };
    "/v1/webhooks/{id}/deliveries": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List a webhook's deliveries, newest first, with every attempt */
        get: {
            parameters: {
                query?: {
                    page?: number;
                    per_page?: number;
                    status?: "pending" | "succeeded" | "failed";
                };
                header?: never;
                path: {
                    /** @description whk_… */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            deliveries: {
                                /** @description dlv_…; the webhook-id header, the same at every attempt */
                                id: string;
                                /** @description whk_… */
                                webhook_id: string;
                                event_id: string;
                                event_type: string;
                                status: "pending" | "succeeded" | "failed";
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                updated_at: string;
                                next_attempt_at: string | null;
                                attempts: {
                                    /**
                                     * Format: date-time
                                     * @description ISO 8601, UTC
                                     */
                                    at: string;
                                    status_code: number | null;
                                    latency_ms: number;
                                    error: string | null;
                                }[];
                            }[];
                            pagination: {
                                total: number;
                                page: number;
                                per_page: number;
                            };
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/approvals": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Approvals of held MCP tool calls that concern you (yours, your agents’, or ones you may decide), newest first */
        get: {
            parameters: {
                query?: {
                    page?: number;
                    per_page?: number;
                    status?: "pending" | "approved" | "denied" | "used";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            approvals: {
                                /** @description apr_… */
                                id: string;
                                status: "pending" | "approved" | "denied" | "used";
                                app: {
                                    id: string;
                                    name: string;
                                };
                                tool: string;
                                /** @description SHA-256 (hex) of the canonical JSON of {tool, arguments, principal} */
                                digest: string;
                                requester: {
                                    kind: string;
                                    id: string;
                                    name: string;
                                };
                                /** @description An agent's owner (user id) */
                                owner?: string;
                                on_behalf_of?: {
                                    kind: string;
                                    id: string;
                                    name: string;
                                };
                                /** @description argument_names, or the arguments themselves when a role sets mcp_record_arguments */
                                shown: {
                                    [key: string]: unknown;
                                };
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                expires_at: string;
                                decided_by?: {
                                    kind: string;
                                    id: string;
                                    name: string;
                                };
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                decided_at?: string;
                            }[];
                            pagination: {
                                total: number;
                                page: number;
                                per_page: number;
                            };
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/approvals/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One approval of a held MCP tool call, if it concerns you (404 otherwise, as for one that expired) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description apr_… */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description apr_… */
                            id: string;
                            status: "pending" | "approved" | "denied" | "used";
                            app: {
                                id: string;
                                name: string;
                            };
                            tool: string;
                            /** @description SHA-256 (hex) of the canonical JSON of {tool, arguments, principal} */
                            digest: string;
                            requester: {
                                kind: string;
                                id: string;
                                name: string;
                            };
                            /** @description An agent's owner (user id) */
                            owner?: string;
                            on_behalf_of?: {
                                kind: string;
                                id: string;
                                name: string;
                            };
                            /** @description argument_names, or the arguments themselves when a role sets mcp_record_arguments */
                            shown: {
                                [key: string]: unknown;
                            };
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            expires_at: string;
                            decided_by?: {
                                kind: string;
                                id: string;
                                name: string;
                            };
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            decided_at?: string;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/approvals/{id}/approve": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Approve a held tool call: the same call (tool, arguments, principal) then passes once, within its TTL */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description apr_… */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description apr_… */
                            id: string;
                            status: "pending" | "approved" | "denied" | "used";
                            app: {
                                id: string;
                                name: string;
                            };
                            tool: string;
                            /** @description SHA-256 (hex) of the canonical JSON of {tool, arguments, principal} */
                            digest: string;
                            requester: {
                                kind: string;
                                id: string;
                                name: string;
                            };
                            /** @description An agent's owner (user id) */
                            owner?: string;
                            on_behalf_of?: {
                                kind: string;
                                id: string;
                                name: string;
                            };
                            /** @description argument_names, or the arguments themselves when a role sets mcp_record_arguments */
                            shown: {
                                [key: string]: unknown;
                            };
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            expires_at: string;
                            decided_by?: {
                                kind: string;
                                id: string;
                                name: string;
                            };
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            decided_at?: string;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/approvals/{id}/deny": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Deny a held tool call */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    /** @description apr_… */
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description apr_… */
                            id: string;
                            status: "pending" | "approved" | "denied" | "used";
                            app: {
                                id: string;
                                name: string;
                            };
                            tool: string;
                            /** @description SHA-256 (hex) of the canonical JSON of {tool, arguments, principal} */
                            digest: string;
                            requester: {
                                kind: string;
                                id: string;
                                name: string;
                            };
                            /** @description An agent's owner (user id) */
                            owner?: string;
                            on_behalf_of?: {
                                kind: string;
                                id: string;
                                name: string;
                            };
                            /** @description argument_names, or the arguments themselves when a role sets mcp_record_arguments */
                            shown: {
                                [key: string]: unknown;
                            };
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            expires_at: string;
                            decided_by?: {
                                kind: string;
                                id: string;
                                name: string;
                            };
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            decided_at?: string;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List sessions, newest first (your own; everyone’s if you may read recordings) */
        get: {
            parameters: {
                query?: {
                    page?: number;
                    per_page?: number;
                    status?: "active" | "ended" | "terminated";
                    /** @description user_… or agent_… id, or a name */
                    principal?: string;
                    /** @description srv_… id or server name */
                    server?: string;
                    login?: string;
                    /** @description sql: a database session (kind db); port_forward: kubectl port-forward (kind kube, not recorded); app: an app session (kind app, not recorded) */
                    type?: "shell" | "exec" | "subsystem" | "sql" | "port_forward" | "app";
                    /** @description Text the session’s command contains, case-insensitive: the command line of `ssh host cmd` or the subsystem (sftp); commands typed into a shell are not indexed */
                    command?: string;
                    /** @description Text the session’s recording contains, case-insensitive: what the server printed (and input, where a role records it), without escape sequences; indexed when the recording closes */
                    text?: string;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            sessions: {
                                id: string;
                                kind: "ssh" | "kube" | "db" | "app";
                                /** @description sql: a database session (kind db); port_forward: kubectl port-forward (kind kube, not recorded); app: an app session (kind app, not recorded) */
                                type: "shell" | "exec" | "subsystem" | "sql" | "port_forward" | "app";
                                principal: {
                                    /** @description user | agent */
                                    kind: string;
                                    id: string;
                                    name: string;
                                };
                                on_behalf_of?: {
                                    /** @description user: the user a delegated agent acted for */
                                    kind: string;
                                    id: string;
                                    name: string;
                                };
                                resource: {
                                    /** @description server | kube_cluster | database | app */
                                    kind: string;
                                    id: string;
                                    name: string;
                                };
                                /** @description SSH: the login; db: the database user */
                                login: string;
                                /** @description db: the database name opened */
                                db_name?: string;
                                /** @description The exec command, or the subsystem (sftp) */
                                command?: string;
                                remote_addr: string;
                                status: "active" | "ended" | "terminated";
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                started_at: string;
                                ended_at: string | null;
                                /** @description Bytes from the user to the server */
                                bytes_in: number;
                                /** @description Bytes from the server to the user (stdout and stderr) */
                                bytes_out: number;
                                exit_code?: number | null;
                                end_reason?: string;
                                recording: {
                                    /** @description none: nothing recorded as a cast (sftp sessions are recorded as file_transfer events; kubectl port-forward carries application bytes, not a terminal, and is not recorded) */
                                    status: "recording" | "pending" | "uploaded" | "upload_failed" | "none" | "unknown";
                                    truncated?: boolean;
                                    /** @description Bytes stored (gzip) */
                                    size?: number;
                                    attempts?: number;
                                    last_error?: string;
                                };
                            }[];
                            pagination: {
                                total: number;
                                page: number;
                                per_page: number;
                            };
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Prepare an SSH or PostgreSQL session: where to connect, as whom, and a one-time ticket (60 s) to give as the password */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            /** @description Either server and login (SSH), or database, db_user and db_name (PostgreSQL) */
            requestBody?: {
                content: {
                    "application/json": {
                        /** @description SSH: srv_… id or server name */
                        server?: string;
                        /** @description SSH: the login */
                        login?: string;
                        /** @description PostgreSQL: db_… id or database resource name */
                        database?: string;
                        /** @description PostgreSQL: the database user */
                        db_user?: string;
                        /** @description PostgreSQL: the database to open */
                        db_name?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description One-time password for the SSH or PostgreSQL proxy, valid 60 s (shown once) */
                            ticket: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            expires_at: string;
                            expires_in: number;
                            /** @description SSH: the login */
                            login?: string;
                            server?: {
                                /** @description server */
                                kind: string;
                                id: string;
                                name: string;
                            };
                            database?: {
                                /** @description database */
                                kind: string;
                                id: string;
                                name: string;
                            };
                            db_user?: string;
                            db_name?: string;
                            proxy: {
                                host: string;
                                port: number;
                            };
                            /** @description <login>@<server>, the user name to give ssh */
                            ssh_username?: string;
                            /** @description A command line that connects (type the ticket as the password) */
                            ssh_command?: string;
                            /** @description A libpq connection string for psql (give the ticket as the password) */
                            psql_conninfo?: string;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a session (live byte counters while it runs) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            id: string;
                            kind: "ssh" | "kube" | "db" | "app";
                            /** @description sql: a database session (kind db); port_forward: kubectl port-forward (kind kube, not recorded); app: an app session (kind app, not recorded) */
                            type: "shell" | "exec" | "subsystem" | "sql" | "port_forward" | "app";
                            principal: {
                                /** @description user | agent */
                                kind: string;
                                id: string;
                                name: string;
                            };
                            on_behalf_of?: {
                                /** @description user: the user a delegated agent acted for */
                                kind: string;
                                id: string;
                                name: string;
                            };
                            resource: {
                                /** @description server | kube_cluster | database | app */
                                kind: string;
                                id: string;
                                name: string;
                            };
                            /** @description SSH: the login; db: the database user */
                            login: string;
                            /** @description db: the database name opened */
                            db_name?: string;
                            /** @description The exec command, or the subsystem (sftp) */
                            command?: string;
                            remote_addr: string;
                            status: "active" | "ended" | "terminated";
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            started_at: string;
                            ended_at: string | null;
                            /** @description Bytes from the user to the server */
                            bytes_in: number;
                            /** @description Bytes from the server to the user (stdout and stderr) */
                            bytes_out: number;
                            exit_code?: number | null;
                            end_reason?: string;
                            recording: {
                                /** @description none: nothing recorded as a cast (sftp sessions are recorded as file_transfer events; kubectl port-forward carries application bytes, not a terminal, and is not recorded) */
                                status: "recording" | "pending" | "uploaded" | "upload_failed" | "none" | "unknown";
                                truncated?: boolean;
                                /** @description Bytes stored (gzip) */
                                size?: number;
                                attempts?: number;
                                last_error?: string;
                            };
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        /** Terminate a live session, on whichever proxy holds it: the user sees a message, the recording is closed properly */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            id: string;
                            kind: "ssh" | "kube" | "db" | "app";
                            /** @description sql: a database session (kind db); port_forward: kubectl port-forward (kind kube, not recorded); app: an app session (kind app, not recorded) */
                            type: "shell" | "exec" | "subsystem" | "sql" | "port_forward" | "app";
                            principal: {
                                /** @description user | agent */
                                kind: string;
                                id: string;
                                name: string;
                            };
                            on_behalf_of?: {
                                /** @description user: the user a delegated agent acted for */
                                kind: string;
                                id: string;
                                name: string;
                            };
                            resource: {
                                /** @description server | kube_cluster | database | app */
                                kind: string;
                                id: string;
                                name: string;
                            };
                            /** @description SSH: the login; db: the database user */
                            login: string;
                            /** @description db: the database name opened */
                            db_name?: string;
                            /** @description The exec command, or the subsystem (sftp) */
                            command?: string;
                            remote_addr: string;
                            status: "active" | "ended" | "terminated";
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            started_at: string;
                            ended_at: string | null;
                            /** @description Bytes from the user to the server */
                            bytes_in: number;
                            /** @description Bytes from the server to the user (stdout and stderr) */
                            bytes_out: number;
                            exit_code?: number | null;
                            end_reason?: string;
                            recording: {
                                /** @description none: nothing recorded as a cast (sftp sessions are recorded as file_transfer events; kubectl port-forward carries application bytes, not a terminal, and is not recorded) */
                                status: "recording" | "pending" | "uploaded" | "upload_failed" | "none" | "unknown";
                                truncated?: boolean;
                                /** @description Bytes stored (gzip) */
                                size?: number;
                                attempts?: number;
                                last_error?: string;
                            };
                            /** @description Whether the instance holding the session confirmed, within 3 s, that it ended it. false: it is marked terminated and its holder ends it when it sees that (e.g. after a Redis outage), or the holder is gone */
                            confirmed_ended: boolean;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/recording": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Download the recording (asciicast v2, or plain text with ?format=text) */
        get: {
            parameters: {
                query?: {
                    /** @description asciicast (default, application/x-asciicast) or text (plain, escape sequences removed) */
                    format?: "asciicast" | "text";
                };
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description application/x-asciicast or text/plain */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/x-asciicast": string;
                        "text/plain": string;
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/sessions/{id}/stream": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Watch a live session as it happens (text/event-stream, read-only): each message is one asciicast v2 line, the header first and what was recorded before you joined; `event: end` when the session ends */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description text/event-stream */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "text/event-stream": string;
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/ssh-ca": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Export the SSH user CA's public key (for TrustedUserCAKeys on target servers) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description OpenSSH public key line of the user CA */
                            public_key: string;
                            /** @description What to add to the target (with the key saved to that file) */
                            sshd_config: string;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/ssh/certificates": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Certify your SSH public key for the SSH proxy: valid while your access token is (at most), refused once your login ends */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Your own ssh-ed25519 public key line (the private key never leaves you) */
                        public_key: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description OpenSSH certificate line, for ssh -o CertificateFile= */
                            certificate: string;
                            /** @description Names the login and the token it is bound to */
                            key_id: string;
                            /** Format: date-time */
                            valid_after: string;
                            /**
                             * Format: date-time
                             * @description No later than the access token that asked
                             */
                            valid_before: string;
                            /** @description Where to connect with it */
                            ssh_proxy?: {
                                host: string;
                                port: number;
                            };
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/apps/launch": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** A one-time URL (60 s) into an app you may reach: opened in a browser, it starts an app session on the app host (docs/apps.md) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                        app: string;
                        /** @description The state the app host put in the launch link (the console passes it on): only the browser holding it can use the URL */
                        state: string;
                        /** @description Where on the app to land (a path starting with a single /, with its query); default / */
                        path?: string;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description The app host's callback with the one-time code: open it in the browser */
                            url: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            expires_at: string;
                            app: {
                                /** @enum {string} */
                                kind: "app";
                                id: string;
                                /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                                name: string;
                            };
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/cluster/join-tokens": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        /** Make a join token a new proxy presents once to get an identity of its own (shown once) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /**
                         * @description What the joining instance will be (proxy)
                         * @enum {string}
                         */
                        role: "proxy";
                        /** @description How long the token may be used (1m to 7d; default 1h) */
                        ttl?: string;
                        /** @description How many proxies may join with it (default 1) */
                        uses?: number;
                    };
                };
            };
            responses: {
                /** @description Default Response */
                201: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            id: string;
                            /** @description Shown once: only its hash is kept. Give it to the new proxy (GATEHOUSE_JOIN_TOKEN). */
                            token: string;
                            /** @enum {string} */
                            role: "proxy";
                            /** Format: date-time */
                            expires_at: string;
                            uses: number;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/cluster/instances": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List the proxies that joined the cluster */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            instances: {
                                /** @description The proxy identity (prx_…); its processes are <id>-<8 hex> in sessions and leases */
                                id: string;
                                /** @enum {string} */
                                role: "proxy";
                                /** Format: date-time */
                                joined_at: string;
                                join_token_id: string;
                            }[];
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/cluster/instances/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        get?: never;
        put?: never;
        post?: never;
        /** Remove a proxy’s identity: its next call is refused and its live sessions end */
        delete: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/connectors": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List single sign-on connectors */
        get: {
            parameters: {
                query?: {
                    page?: number;
                    per_page?: number;
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            connectors: {
                                /** @description conn_… */
                                id: string;
                                /** @enum {string} */
                                kind: "oidc";
                                /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                                name: string;
                                /** @description Shown on the button: "Sign in with …" */
                                display_name: string;
                                /** @description The OpenID Provider’s issuer URL (https; http only on loopback) */
                                issuer: string;
                                client_id: string;
                                /** @description Default openid, profile, email; openid is always asked */
                                scopes: string[];
                                claims_to_roles: {
                                    /** @description A claim name, or a dotted path into nested claims (realm_access.roles); a name held as it is wins */
                                    claim: string;
                                    /** @description A `*` glob over the claim’s value(s) */
                                    value: string;
                                    roles: string[];
                                }[];
                                /** @description Trait name → claim (e.g. {"logins": "unix_username"}); replaced at every sign-in */
                                traits_from_claims: {
                                    [key: string]: string;
                                };
                                /** @description A claim name, or a dotted path into nested claims (realm_access.roles); a name held as it is wins */
                                username_claim: string;
                                /** @description false: nobody signs in through it, and the logins it made end */
                                enabled: boolean;
                                /** @description Seconds one sign-in lasts, refreshes included (default 43200); then the provider is asked again */
                                max_session_ttl: number;
                                /** @description Register this at the provider (made from web_public_url) */
                                redirect_uri: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                created_at: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                updated_at: string;
                            }[];
                            pagination: {
                                total: number;
                                page: number;
                                per_page: number;
                            };
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        /** Create a single sign-on connector (answers the redirect_uri to register at the provider) */
        post: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @enum {string} */
                        kind: "oidc";
                        /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                        name: string;
                        /** @description Shown on the button: "Sign in with …" */
                        display_name: string;
                        /** @description The OpenID Provider’s issuer URL (https; http only on loopback) */
                        issuer: string;
                        client_id: string;
                        /** @description Required on create; on PUT, absent keeps it */
                        client_secret?: string;
                        /** @description Default openid, profile, email; openid is always asked */
                        scopes?: string[];
                        claims_to_roles: {
                            /** @description A claim name, or a dotted path into nested claims (realm_access.roles); a name held as it is wins */
                            claim: string;
                            /** @description A `*` glob over the claim’s value(s) */
                            value: string;
                            roles: string[];
                        }[];
                        /** @description Trait name → claim (e.g. {"logins": "unix_username"}); replaced at every sign-in */
                        traits_from_claims?: {
                            [key: string]: string;
                        };
                        /** @description The claim whose value is the user name (default preferred_username) */
                        username_claim?: string;
                        /** @description false: nobody signs in through it, and the logins it made end */
                        enabled?: boolean;
                        /** @description Seconds one sign-in lasts, refreshes included (default 43200); then the provider is asked again */
                        max_session_ttl?: number;
                    };
                };
            };
            responses: {
                /** @description A single sign-on connector; its client secret is never answered */
                201: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description conn_… */
                            id: string;
                            /** @enum {string} */
                            kind: "oidc";
                            /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                            name: string;
                            /** @description Shown on the button: "Sign in with …" */
                            display_name: string;
                            /** @description The OpenID Provider’s issuer URL (https; http only on loopback) */
                            issuer: string;
                            client_id: string;
                            /** @description Default openid, profile, email; openid is always asked */
                            scopes: string[];
                            claims_to_roles: {
                                /** @description A claim name, or a dotted path into nested claims (realm_access.roles); a name held as it is wins */
                                claim: string;
                                /** @description A `*` glob over the claim’s value(s) */
                                value: string;
                                roles: string[];
                            }[];
                            /** @description Trait name → claim (e.g. {"logins": "unix_username"}); replaced at every sign-in */
                            traits_from_claims: {
                                [key: string]: string;
                            };
                            /** @description A claim name, or a dotted path into nested claims (realm_access.roles); a name held as it is wins */
                            username_claim: string;
                            /** @description false: nobody signs in through it, and the logins it made end */
                            enabled: boolean;
                            /** @description Seconds one sign-in lasts, refreshes included (default 43200); then the provider is asked again */
                            max_session_ttl: number;
                            /** @description Register this at the provider (made from web_public_url) */
                            redirect_uri: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            updated_at: string;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/auth/connectors/{id}": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Get a single sign-on connector */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description A single sign-on connector; its client secret is never answered */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        ETag: components["headers"]["ETag"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description conn_… */
                            id: string;
                            /** @enum {string} */
                            kind: "oidc";
                            /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                            name: string;
                            /** @description Shown on the button: "Sign in with …" */
                            display_name: string;
                            /** @description The OpenID Provider’s issuer URL (https; http only on loopback) */
                            issuer: string;
                            client_id: string;
                            /** @description Default openid, profile, email; openid is always asked */
                            scopes: string[];
                            claims_to_roles: {
                                /** @description A claim name, or a dotted path into nested claims (realm_access.roles); a name held as it is wins */
                                claim: string;
                                /** @description A `*` glob over the claim’s value(s) */
                                value: string;
                                roles: string[];
                            }[];
                            /** @description Trait name → claim (e.g. {"logins": "unix_username"}); replaced at every sign-in */
                            traits_from_claims: {
                                [key: string]: string;
                            };
                            /** @description A claim name, or a dotted path into nested claims (realm_access.roles); a name held as it is wins */
                            username_claim: string;
                            /** @description false: nobody signs in through it, and the logins it made end */
                            enabled: boolean;
                            /** @description Seconds one sign-in lasts, refreshes included (default 43200); then the provider is asked again */
                            max_session_ttl: number;
                            /** @description Register this at the provider (made from web_public_url) */
                            redirect_uri: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            updated_at: string;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        /** Replace a single sign-on connector (you must cover what it gives, before and after) */
        put: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Change the item only if it is still at this version: the ETag its GET answered. Another version (someone changed it since) is a 412 and nothing is written; absent, the change applies to whatever is current */
                    "if-match"?: string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody: {
                content: {
                    "application/json": {
                        /** @enum {string} */
                        kind: "oidc";
                        /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                        name: string;
                        /** @description Shown on the button: "Sign in with …" */
                        display_name: string;
                        /** @description The OpenID Provider’s issuer URL (https; http only on loopback) */
                        issuer: string;
                        client_id: string;
                        /** @description Required on create; on PUT, absent keeps it */
                        client_secret?: string;
                        /** @description Default openid, profile, email; openid is always asked */
                        scopes?: string[];
                        claims_to_roles: {
                            /** @description A claim name, or a dotted path into nested claims (realm_access.roles); a name held as it is wins */
                            claim: string;
                            /** @description A `*` glob over the claim’s value(s) */
                            value: string;
                            roles: string[];
                        }[];
                        /** @description Trait name → claim (e.g. {"logins": "unix_username"}); replaced at every sign-in */
                        traits_from_claims?: {
                            [key: string]: string;
                        };
                        /** @description The claim whose value is the user name (default preferred_username) */
                        username_claim?: string;
                        /** @description false: nobody signs in through it, and the logins it made end */
                        enabled?: boolean;
                        /** @description Seconds one sign-in lasts, refreshes included (default 43200); then the provider is asked again */
                        max_session_ttl?: number;
                    };
                };
            };
            responses: {
                /** @description A single sign-on connector; its client secret is never answered */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            /** @description conn_… */
                            id: string;
                            /** @enum {string} */
                            kind: "oidc";
                            /** @description Letters, digits and . _ @ -, starting with a letter or digit */
                            name: string;
                            /** @description Shown on the button: "Sign in with …" */
                            display_name: string;
                            /** @description The OpenID Provider’s issuer URL (https; http only on loopback) */
                            issuer: string;
                            client_id: string;
                            /** @description Default openid, profile, email; openid is always asked */
                            scopes: string[];
                            claims_to_roles: {
                                /** @description A claim name, or a dotted path into nested claims (realm_access.roles); a name held as it is wins */
                                claim: string;
                                /** @description A `*` glob over the claim’s value(s) */
                                value: string;
                                roles: string[];
                            }[];
                            /** @description Trait name → claim (e.g. {"logins": "unix_username"}); replaced at every sign-in */
                            traits_from_claims: {
                                [key: string]: string;
                            };
                            /** @description A claim name, or a dotted path into nested claims (realm_access.roles); a name held as it is wins */
                            username_claim: string;
                            /** @description false: nobody signs in through it, and the logins it made end */
                            enabled: boolean;
                            /** @description Seconds one sign-in lasts, refreshes included (default 43200); then the provider is asked again */
                            max_session_ttl: number;
                            /** @description Register this at the provider (made from web_public_url) */
                            redirect_uri: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            created_at: string;
                            /**
                             * Format: date-time
                             * @description ISO 8601, UTC
                             */
                            updated_at: string;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description If-Match does not name the item’s current ETag: someone changed it since it was read, and nothing was written (problem+json) */
                412: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        post?: never;
        /** Delete a single sign-on connector (its users keep their records; the logins it made end) */
        delete: {
            parameters: {
                query?: never;
                header?: {
                    /** @description Change the item only if it is still at this version: the ETag its GET answered. Another version (someone changed it since) is a 412 and nothing is written; absent, the change applies to whatever is current */
                    "if-match"?: string;
                };
                path: {
                    id: string;
                };
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                204: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content?: never;
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description If-Match does not name the item’s current ETag: someone changed it since it was read, and nothing was written (problem+json) */
                412: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List audit events, newest first (format=ndjson streams them all) */
        get: {
            parameters: {
                query?: {
                    page?: number;
                    per_page?: number;
                    /** @description next_cursor of the previous page: continue after it (use instead of page for deep paging) */
                    cursor?: string;
                    /** @description Event type, or a prefix like session.*; repeat for several */
                    type?: string[];
                    /** @description Actor id (user_…, agent_…) */
                    actor?: string;
                    actor_kind?: "user" | "agent" | "system" | "anonymous";
                    /** @description Target id */
                    target?: string;
                    session_id?: string;
                    success?: boolean;
                    /** @description Inclusive lower time bound (ISO 8601) */
                    from?: string;
                    /** @description Inclusive upper time bound (ISO 8601) */
                    to?: string;
                    /** @description With a read replica (audit_read_url): eventual (default) reads the replica and answers its lag in Gatehouse-Replica-Lag; strong reads the primary */
                    consistency?: "eventual" | "strong";
                    /** @description ndjson streams every matching event, one per line, ignoring paging */
                    format?: "json" | "ndjson";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            events: {
                                /** @description evt_… */
                                id: string;
                                /** @description e.g. auth.token.issued; see docs/events.md */
                                type: string;
                                /** @description Stable code, e.g. GH1000I */
                                code: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                time: string;
                                actor: {
                                    kind: "user" | "agent" | "system" | "anonymous";
                                    id?: string;
                                    name?: string;
                                };
                                target?: {
                                    kind: string;
                                    id: string;
                                    name?: string;
                                };
                                session_id?: string;
                                success: boolean;
                                remote_addr?: string;
                                request_id?: string;
                                data?: {
                                    [key: string]: unknown;
                                };
                            }[];
                            pagination: {
                                /** @description Matching events, counted up to total_limit */
                                total: number;
                                page: number;
                                per_page: number;
                                /** @description Counting stops here; a total equal to it means "at least" */
                                total_limit: number;
                            };
                            /** @description Pass as cursor for the next page */
                            next_cursor: string | null;
                        };
                        "application/x-ndjson": string;
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit/events": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** List audit events, newest first (format=ndjson streams them all) */
        get: {
            parameters: {
                query?: {
                    page?: number;
                    per_page?: number;
                    /** @description next_cursor of the previous page: continue after it (use instead of page for deep paging) */
                    cursor?: string;
                    /** @description Event type, or a prefix like session.*; repeat for several */
                    type?: string[];
                    /** @description Actor id (user_…, agent_…) */
                    actor?: string;
                    actor_kind?: "user" | "agent" | "system" | "anonymous";
                    /** @description Target id */
                    target?: string;
                    session_id?: string;
                    success?: boolean;
                    /** @description Inclusive lower time bound (ISO 8601) */
                    from?: string;
                    /** @description Inclusive upper time bound (ISO 8601) */
                    to?: string;
                    /** @description With a read replica (audit_read_url): eventual (default) reads the replica and answers its lag in Gatehouse-Replica-Lag; strong reads the primary */
                    consistency?: "eventual" | "strong";
                    /** @description ndjson streams every matching event, one per line, ignoring paging */
                    format?: "json" | "ndjson";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            events: {
                                /** @description evt_… */
                                id: string;
                                /** @description e.g. auth.token.issued; see docs/events.md */
                                type: string;
                                /** @description Stable code, e.g. GH1000I */
                                code: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                time: string;
                                actor: {
                                    kind: "user" | "agent" | "system" | "anonymous";
                                    id?: string;
                                    name?: string;
                                };
                                target?: {
                                    kind: string;
                                    id: string;
                                    name?: string;
                                };
                                session_id?: string;
                                success: boolean;
                                remote_addr?: string;
                                request_id?: string;
                                data?: {
                                    [key: string]: unknown;
                                };
                            }[];
                            pagination: {
                                /** @description Matching events, counted up to total_limit */
                                total: number;
                                page: number;
                                per_page: number;
                                /** @description Counting stops here; a total equal to it means "at least" */
                                total_limit: number;
                            };
                            /** @description Pass as cursor for the next page */
                            next_cursor: string | null;
                        };
                        "application/x-ndjson": string;
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit/access": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** Access decisions: who tried what, allowed or denied, and which role decided */
        get: {
            parameters: {
                query?: {
                    page?: number;
                    per_page?: number;
                    /** @description next_cursor of the previous page: continue after it (use instead of page for deep paging) */
                    cursor?: string;
                    actor?: string;
                    allowed?: boolean;
                    /** @description Inclusive lower time bound (ISO 8601) */
                    from?: string;
                    /** @description Inclusive upper time bound (ISO 8601) */
                    to?: string;
                    /** @description With a read replica (audit_read_url): eventual (default) reads the replica and answers its lag in Gatehouse-Replica-Lag; strong reads the primary */
                    consistency?: "eventual" | "strong";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            decisions: {
                                event_id: string;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                time: string;
                                actor: {
                                    kind: "user" | "agent" | "system" | "anonymous";
                                    id?: string;
                                    name?: string;
                                };
                                /** @description What was attempted: a permission (users:list) or a connection */
                                action: string;
                                target: string | null;
                                allowed: boolean;
                                /** @description The role whose rule decided, if any */
                                decided_by: string | null;
                                reason: string | null;
                            }[];
                            pagination: {
                                /** @description Matching events, counted up to total_limit */
                                total: number;
                                page: number;
                                per_page: number;
                                /** @description Counting stops here; a total equal to it means "at least" */
                                total_limit: number;
                            };
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/v1/audit/sessions": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** One row per session: start, end, duration, principal, resource, recording status */
        get: {
            parameters: {
                query?: {
                    page?: number;
                    per_page?: number;
                    /** @description next_cursor of the previous page: continue after it (use instead of page for deep paging) */
                    cursor?: string;
                    /** @description Principal id */
                    actor?: string;
                    /** @description Resource id */
                    target?: string;
                    /** @description Inclusive lower time bound (ISO 8601) */
                    from?: string;
                    /** @description Inclusive upper time bound (ISO 8601) */
                    to?: string;
                    /** @description With a read replica (audit_read_url): eventual (default) reads the replica and answers its lag in Gatehouse-Replica-Lag; strong reads the primary */
                    consistency?: "eventual" | "strong";
                };
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            sessions: {
                                session_id: string;
                                kind: string | null;
                                principal: {
                                    kind: "user" | "agent" | "system" | "anonymous";
                                    id?: string;
                                    name?: string;
                                };
                                resource: {
                                    kind: string;
                                    id: string;
                                    name?: string;
                                } | null;
                                login: string | null;
                                /**
                                 * Format: date-time
                                 * @description ISO 8601, UTC
                                 */
                                started_at: string;
                                ended_at: string | null;
                                duration_seconds: number | null;
                                status: "active" | "ended" | "terminated";
                                recording: "none" | "pending" | "uploaded" | "upload_failed";
                            }[];
                            pagination: {
                                /** @description Matching events, counted up to total_limit */
                                total: number;
                                page: number;
                                per_page: number;
                                /** @description Counting stops here; a total equal to it means "at least" */
                                total_limit: number;
                            };
                            next_cursor: string | null;
                        };
                    };
                };
                /** @description Not authenticated: no token, or one that is invalid, expired or revoked (problem+json) */
                401: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "WWW-Authenticate": components["headers"]["WWW-Authenticate"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Rate limited (an agent over its limit, or too many failed logins): wait Retry-After seconds */
                429: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        "RateLimit-Limit": components["headers"]["RateLimit-Limit"];
                        "RateLimit-Remaining": components["headers"]["RateLimit-Remaining"];
                        "RateLimit-Reset": components["headers"]["RateLimit-Reset"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description RFC 9457 problem details (application/problem+json) */
                "5XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/healthz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The process is alive */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            status: "ok" | "degraded";
                            checks?: {
                                [key: string]: string;
                            };
                        };
                    };
                };
                /** @description Client error (problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
    "/readyz": {
        parameters: {
            query?: never;
            header?: never;
            path?: never;
            cookie?: never;
        };
        /** The backend and the audit store answer (503 when not) */
        get: {
            parameters: {
                query?: never;
                header?: never;
                path?: never;
                cookie?: never;
            };
            requestBody?: never;
            responses: {
                /** @description Default Response */
                200: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/json": {
                            status: "ok" | "degraded";
                            checks?: {
                                [key: string]: string;
                            };
                        };
                    };
                };
                /** @description Default Response */
                503: {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        "Retry-After": components["headers"]["Retry-After"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
                /** @description Client error (problem+json) */
                "4XX": {
                    headers: {
                        "X-Request-Id": components["headers"]["X-Request-Id"];
                        [name: string]: unknown;
                    };
                    content: {
                        "application/problem+json": components["schemas"]["Problem"];
                    };
                };
            };
        };
        put?: never;
        post?: never;
        delete?: never;
        options?: never;
        head?: never;
        patch?: never;
        trace?: never;
    };
}
export type webhooks = Record<string, never>;
export interface components {
    schemas: {
        /** @description RFC 9457 problem details (application/problem+json) */
        Problem: {
            type: string;
            title: string;
            status: number;
            detail: string;
            code: string;
            request_id: string;
            errors?: {
                path: string;
                message: string;
            }[];
        };
    };
    responses: never;
    parameters: never;
    requestBodies: never;
    headers: {
        /** @description The request id (req_…), also in every problem as request_id; quote it when reporting one */
        "X-Request-Id": string;
        /** @description The path of the created item */
        Location: string;
        /** @description Bearer realm="gatehouse", with error="invalid_token" and a description when a token was refused */
        "WWW-Authenticate": string;
        /** @description The version of the item (strong; its stored revision): send it back in If-Match to change the item only if nobody changed it since */
        ETag: string;
        /** @description Seconds to wait before trying again */
        "Retry-After": string;
        /** @description Requests (or failures) allowed in the window */
        "RateLimit-Limit": string;
        /** @description What is left of it: 0 when refused */
        "RateLimit-Remaining": string;
        /** @description Seconds until the window ends */
        "RateLimit-Reset": string;
    };
    pathItems: never;
}
export type $defs = Record<string, never>;
export type operations = Record<string, never>;
