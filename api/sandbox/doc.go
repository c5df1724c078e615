// Package sandbox is a faithful, stateful, in-process implementation of the
// whole Payments, Mandates and Payouts service of interface.md, the way
// net/http/httptest sits beside net/http. It backs `paydash demo`,
// `paydash sandbox` (a standalone server developers point their own code
// at) and every test that talks to the service over real HTTP.
//
//	srv, err := sandbox.Listen(ctx, "127.0.0.1:0", sandbox.Options{MerchantKey: &key.PublicKey})
//	info := srv.Info() // URLs and client credentials for api.NewClient
//
// # Endpoints
//
// The interface, all on one server (auth_url = base_url = payouts_url):
//
//	POST /connect/token      client credentials -> access token
//	POST /v3/mandates        create a VRP mandate
//	POST /v3/payments        create a single payment
//	GET  /v1/balances        payout account balances
//	POST /v1/payouts         create a payout (202; outcome by webhook)
//	GET  /v1/transactions    the transaction report (streamed)
//
// Extensions (not in interface.md; for the UI and for receivers):
//
//	GET /v3/payments/{id}    a payment with status (scope payments)
//	GET /v3/mandates/{id}    a mandate with status (scope of its type)
//	GET /.well-known/jwks    the public key webhooks are signed with
//
// Control endpoints, under /sandbox/ only, JSON in and out, without
// authentication (the sandbox is for loopback):
//
//	GET  /sandbox                                   this list, the merchant accounts, the magic rules
//	POST /sandbox/fund                              {currency, amount_in_minor, payer_name, payer_iban?, reference?} -> 201 transaction
//	GET  /sandbox/webhook, PUT /sandbox/webhook     {webhook_uri} ("" unregisters)
//	POST /sandbox/payments/{id}/authorise|fail|expire   optional {reason} for fail -> 200 payment
//	POST /sandbox/mandates/{id}/authorise|fail|expire   likewise -> 200 mandate
//	POST /sandbox/accounts/{currency}/status        {status: enabled|disabled} -> 200 balance
//	POST /sandbox/events                            raw webhook body (delivered byte for byte), or
//	                                                {trigger, family?, payout_id?, reason?, beneficiary?, currency?, amount_in_minor?, metadata?} -> 202 {event_id, event_type, payout_id}
//	GET  /sandbox/deliveries?payout_id=&event_id=   the delivery log, one entry per attempt
//
// The operations the demo and the tests drive in Go: Fund, SetWebhookURI,
// SetAccountStatus, AuthorisePayment, AuthoriseMandate, FailMandate,
// InjectEvent, Deliveries, Balances. The rest exist over HTTP only.
//
// # Driving each payout path by hand
//
// Every payout passes validation (api.ValidatePayout) first; then, in this
// order:
//
//   - A transaction_id already used (by any payout, rejected ones too, or a
//     seeded record): 202 and nothing happens — no record, no event.
//   - The currency's account is disabled (SetAccountStatus or POST
//     /sandbox/accounts/{currency}/status): 409 account_disabled.
//   - beneficiary_name contains the word "AML" (any case, as a whole word:
//     "AML Test", "Jo aml"; not "Jamal"), or equals a name on the deny list
//     (Options.DenyList, default "Sanctioned Person", "Blocked
//     Beneficiary"): payout_rejected with reason aml_check_failed.
//   - amount_in_minor above the account's available balance:
//     payout_rejected with reason insufficient_funds. (Fund exactly N and
//     send more than N; or drain the account with payouts first.)
//   - Otherwise payout_authorised, with the amount reserved (available
//     balance down). Then, one StepDelay apart, by beneficiary_reference:
//   - "FAIL" or "FAIL:<reason>" (any case): payout_failed from authorised
//     with that reason, folded to lower_snake_case ("FAIL:Account closed"
//     gives account_closed; default scheme_error). The reservation is
//     released.
//   - "RETURN" or "RETURN:<anything>": payout_submitted, then payout_failed
//     with reason returned (the beneficiary bank bounced it before it
//     settled). The reservation is released.
//   - anything else: payout_submitted, then payout_settled, when the
//     amount leaves the current balance too.
//
// StepDelay 0 means the next clock tick: immediate on the real clock, the
// next Advance on a clock.Fake (one Advance(0) runs a payout to its end,
// since the fake fires timers scheduled within the advanced window).
//
// # Choices where interface.md is silent
//
// Token endpoint: form-encoded client_credentials; the client
// authenticates with client_id/client_secret form fields or HTTP Basic.
// scope is required, space-separated, each one of
// recurring_payments:sweeping, recurring_payments:commercial, payments and
// payouts (the scope of the payout interface). The response is
// api.TokenResponse: {access_token, token_type "Bearer", expires_in
// (seconds, Options.TokenTTL, default 3600), scope}. Tokens are opaque.
// Errors are 400 (invalid_request, unsupported_grant_type, invalid_scope)
// and 401 invalid_client, as problem documents that also carry the RFC
// 6749 members error and error_description.
//
// Authorisation: a missing, malformed, unknown or expired bearer token is
// 401 with WWW-Authenticate: Bearer; a token without the needed scope is
// 403 (insufficient_scope). Mandate creation needs a token with exactly
// one recurring_payments scope and it must match mandate.type (a token
// with both is 403); payments need "payments"; balances, payouts and
// transactions need "payouts". A token may carry several scopes.
//
// Order of checks on a POST: token (401), signature (401), body (415 for a
// non-JSON Content-Type or JSON declared in a charset other than UTF-8,
// 413 over 1 MiB, 400 for malformed JSON), scope
// (403), Idempotency-Key (400 missing; replay or 422), validation (400),
// then the operation.
//
// Signatures: Svc-Signature on POST /v3/*, X-Svc-Signature on POST /v1/*,
// verified with api.Verify against Options.MerchantKey over the method,
// the URL path and the body; an Idempotency-Key that is sent must be
// among the signed headers. When Options.MerchantKeyID is set, the JWS kid
// must equal it. Failure is 401 invalid_signature naming the header and
// saying whether it was missing or invalid.
//
// Idempotency (POST /v3/*): Idempotency-Key is required (400 with errors
// {"Idempotency-Key": ...}), at most 255 characters. The first successful
// response per key is kept for 24 hours: the same key with the same
// method, path and body gets it again, byte for byte, with
// Idempotent-Replayed: true; the same key with anything else is 422
// idempotency_key_reused. Failed requests (validation) are not stored,
// so they can be corrected and re-sent under the same key. Payouts are
// idempotent on transaction_id instead: a repeat is 202 and creates
// nothing, whatever its other fields.
//
// Status codes: payment and mandate creation 201 Created; payout creation
// 202 with an empty body; an unknown path 404 and a wrong method 405,
// both problem documents.
//
// Errors: every error is application/problem+json (RFC 9457) with type
// (ProblemTypeBase + slug), title, status, detail, trace_id and, for
// invalid fields, errors: a map from field path (the api.Problem field,
// e.g. "payment_method.beneficiary.merchant_account_id") to messages.
// Slugs: unauthorized, invalid_signature, insufficient_scope,
// invalid_request, invalid_parameters, idempotency_key_reused,
// account_disabled, invalid_state, no_webhook_uri, not_found,
// method_not_allowed, unsupported_media_type, payload_too_large,
// internal, and the OAuth codes on the token endpoint. Every response
// carries X-Trace-Id, the same id as the problem's trace_id.
//
// Merchant accounts: one payout account per currency and rail, with the
// merchant_account_id payments and mandates pay into:
//
//	GBP  6f2f3c2e-0b9d-4c47-9b1e-5a1f00000826  Faster Payments  GB IBAN, sort code 040075, account 00000826
//	EUR  6f2f3c2e-0b9d-4c47-9b1e-5a1f00000978  SEPA             IE IBAN
//
// An unknown merchant_account_id is 400 on that field; so is one whose
// currency differs from the payment's or mandate's (GBP<->EUR), as
// api.ValidateOptions.AccountCurrency is wired to these accounts. A payout
// in a currency without an account is 400 on currency. Funding a
// disabled account is allowed (money still arrives).
//
// Payments and mandates: status authorization_required on creation, with
// a resource_token (opaque) valid 15 minutes by the clock. Authorising
// (control endpoint) gives authorized; failing gives failed with
// failure_reason (default authorization_failed); expiry — 15 minutes on
// the clock, or the expire control — gives failed with failure_reason
// expired. Expiry is applied when the resource is next read or acted on.
// Acting on one that is no longer awaiting authorisation is 409
// invalid_state. Authorising a payment into a merchant account credits
// that payout account at once (a funding record named after the payer,
// no webhook). A missing user.id is generated. The creation responses are
// exactly interface.md's fields; GET returns FlowView (no resource token).
//
// Ledger: available <= current always. A payout reserves available
// balance when authorised, leaves current balance when settled, and gives
// the reservation back when it fails. Rejected payouts never touch the
// ledger and are not in the report. current = fundings - settled
// payouts, and available = current - payouts still authorised or
// submitted, at every moment.
//
// Transaction report: records are payouts (type "payout") and fundings
// (type "funding": incoming transfers, status settled, with only
// settled_at; beneficiary_name/iban/reference describe the counterparty
// — the payer — and context_code is empty). Amounts are positive; type
// gives the direction. Payout statuses are authorised, submitted, settled
// and failed; timestamps not reached are omitted (a failed payout keeps
// authorised_at and, if it got that far, submitted_at). A record is
// filtered and ordered by when it was booked: authorised_at for a
// payout, settled_at for a funding. from and to are inclusive; each is an
// RFC 3339 timestamp (any fraction, e.g. the report's own seven digits),
// a zoneless date-time (UTC), or a date (from its first to its last
// instant). type is payout or funding in any case ("Payout" works);
// currency is any case; a valid currency without an account yields no
// records. Bad values are 400 with errors on the parameter. There is no
// pagination and no default filter: the whole ledger, oldest first,
// streamed record by record, holding only the records that existed when
// the request arrived.
//
// Webhooks (payout interface): POST to the registered URI with
// Content-Type application/json, User-Agent paydash-sandbox/1,
// X-Svc-Webhook-Timestamp (RFC 3339 UTC with milliseconds, fresh per
// attempt) and X-Svc-Signature: api.Sign with the sandbox's own P-521 key
// over POST, the URI's path ("/" when empty), the signed header
// X-Svc-Webhook-Timestamp and the body; the JWS kid names the key in GET
// /.well-known/jwks. The body is the envelope {event_type, event_id,
// event_body}; event types are payout_authorised, payout_submitted,
// payout_settled, payout_rejected and payout_failed (the api.EventPayout*
// constants); event_body is api.PayoutEventBody: transaction_id, the
// state's timestamp (authorised_at, submitted_at, settled_at,
// rejected_at or failed_at; RFC 3339 with milliseconds) and, for rejected
// and failed, reason.
//
// A funding through Fund or POST /sandbox/fund arrives at the account's
// IBAN, so it sends external_payment_received, a flat payments-interface
// object (ExternalPaymentReceived): type, event_id, event_version 1,
// transaction_id, merchant_account_id, currency, amount_in_minor,
// remitter {account_holder_name, iban}, reference, settled_at. Seeded
// history sends nothing.
//
// Triggers (POST /sandbox/events with "trigger": a sandboxapi.Trigger) make any
// event without touching the ledger: the payout-interface events above;
// payout_executed and payout_failed in the payments-interface variants of
// interface.md (beneficiary external_account — executed carries
// merchant_account_id and scheme_id by currency, failed carries
// beneficiary.type —, payment_source with payment_source_id and user_id,
// business_account, whose failure has no failure_reason; failure_reason
// returned adds failure_details); and external_payment_received.
// payout_failed is the payments-interface one unless family is "payout".
//
// Delivery: a 2xx answer is success; anything else (3xx included: no
// redirects are followed), a connection error or a timeout
// (Options.WebhookTimeout, default 10 s) is retried after each wait in
// Options.WebhookRetry (default 1, 2, 4, 8, 16 s, on Options.Clock), then
// dropped. Events of one payout are delivered strictly in order, each
// after the previous one succeeded or was dropped: one queue and
// goroutine per payout (transaction_id; an injected body's
// event_body.transaction_id, payout_id or transaction_id), so a failing
// receiver for one payout does not hold up the others; at most 16
// attempts run at once. Events are bound to the URI registered when they
// happen; with none registered an event is logged (attempt 0, final) and
// dropped. Every attempt is one Delivery in Deliveries() and GET
// /sandbox/deliveries (the newest Options.DeliveryLogSize, default
// 10,000), without the URI's query.
//
// Seeded history: Options.History records over the Options.HistoryDays
// (default 90) before now, drawn from math/rand/v2's PCG seeded with
// Options.HistorySeed, so the same seed and clock give the same report.
// First come the opening balances (Options.InitialFunds) as funding
// records at the start of the window (payer "Paydash Sandbox Ltd",
// reference OPENING BALANCE); then about 70% GBP and 30% EUR records:
// payouts to a pool of 500 recurring beneficiaries per currency (people
// and companies, GB IBANs for GBP, IBANs of eight euro countries for EUR,
// every one with valid check digits, national ones included), amounts
// mostly tens to thousands, references like INV-004211 or WD-00812345,
// context_code withdrawal; about 1.5% failed, the rest settled seconds to
// minutes after authorisation; and top-up fundings whenever an account
// runs low and now and then anyway, so no payout ever overdraws. Balances
// end equal to the fundings minus the settled payouts of the report.
//
// Concurrency: one mutex over the ledger makes the funds check and the
// reservation one step, so concurrent payouts never overdraw; the report
// copies records out in chunks of 512 so a slow reader never holds it.
//
// Imports: api, its own sandboxapi (the trigger's request and answer,
// which clients import instead of this package) and internal/platform
// leaves (clock, httpguard). Only the server commands (`paydash sandbox`
// in internal/cli/serve, the demo) and test helpers link it.
package sandbox
