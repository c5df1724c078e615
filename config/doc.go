// Package config loads paydash profiles: a TOML file of named profiles,
// overridden by PAYDASH_* environment variables, overridden in turn by
// command-line flags. Bad values are reported with the file, profile and key
// they came from; secrets are held in Secret so that no printed form of a
// Profile (fmt, JSON, TOML, slog, errors) ever shows them.
//
// It may import api and internal/platform leaves; never ui, a command,
// the pipeline or a server. The commands, ui and the pipeline's callers
// import it.
package config
