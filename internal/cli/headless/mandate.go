package headless

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/paydash/paydash/api"
	"github.com/paydash/paydash/internal/cli/cmdutil"
)

// MandateOptions are the flags of `paydash mandate create`.
type MandateOptions struct {
	Type          string
	Currency      string
	Reference     string
	ValidFrom     string
	ValidTo       string
	MaxIndividual string
	Limits        []string

	requestFlags
}

// Bind registers the flags.
func (o *MandateOptions) Bind(fs *pflag.FlagSet) {
	fs.StringVar(&o.Type, "type", "", "sweeping or commercial (required; picks the token scope)")
	fs.StringVar(&o.Currency, "currency", "", "currency of payments on the mandate, e.g. GBP (required)")
	fs.StringVar(&o.Reference, "reference", "", "mandate reference (regulated customers only)")
	fs.StringVar(&o.ValidFrom, "valid-from", "", "when the mandate becomes valid: 2025-01-31T09:30:00.000Z, RFC 3339, or a date 2025-01-31")
	fs.StringVar(&o.ValidTo, "valid-to", "", "when the mandate stops being valid (same forms as --valid-from)")
	fs.StringVar(&o.MaxIndividual, "max-individual", "", "maximum amount of one payment, major units, e.g. 250.00 (required)")
	fs.StringArrayVar(&o.Limits, "limit", nil, "periodic limit PERIOD=AMOUNT[:ALIGNMENT], e.g. month=5000.00:calendar; periods day, week, fortnight, month, half_year, year; alignment consent (default) or calendar (repeatable)")
	o.bind(fs, false) // the embedded requestFlags: profile, output and idempotency flags
}

// Request builds the mandate creation request from the flags, with the
// problems the flags themselves have.
func (o *MandateOptions) Request() (*api.MandateRequest, []string) {
	var usage []string
	cur := strings.ToUpper(strings.TrimSpace(o.Currency))
	req := &api.MandateRequest{Currency: cur}
	req.Mandate.Type = strings.TrimSpace(o.Type)
	req.Mandate.Reference = strings.TrimSpace(o.Reference)
	ben, p := o.ben.build()
	usage = append(usage, p...)
	req.Mandate.Beneficiary = ben
	ps, p := o.prov.build()
	usage = append(usage, p...)
	req.Mandate.ProviderSelection = ps
	req.User = o.user.build()
	md, rp, p := o.ext.build()
	usage = append(usage, p...)
	req.Metadata, req.RelatedProducts = md, rp

	for _, f := range []struct {
		flag, field, val string
		dst              *string
	}{
		{"--valid-from", "constraints.valid_from", o.ValidFrom, &req.Constraints.ValidFrom},
		{"--valid-to", "constraints.valid_to", o.ValidTo, &req.Constraints.ValidTo},
	} {
		if f.val == "" {
			continue
		}
		t, err := parseMandateTime(f.val)
		if err != nil {
			usage = append(usage, fmt.Sprintf("%s: %v", f.flag, err))
			o.unparsed = append(o.unparsed, f.field)
			continue
		}
		*f.dst = api.FormatMandateTime(t)
	}
	if o.MaxIndividual == "" {
		usage = append(usage, "--max-individual is required, e.g. --max-individual 250.00")
		o.unparsed = append(o.unparsed, "constraints.maximum_individual_amount")
	} else if minor, err := api.ParseAmount(o.MaxIndividual, cur, false); err != nil {
		usage = append(usage, fmt.Sprintf("--max-individual: %v", err))
		o.unparsed = append(o.unparsed, "constraints.maximum_individual_amount", "constraints.periodic_limits")
	} else {
		req.Constraints.MaximumIndividualAmount = minor
	}
	if len(o.Limits) > 0 {
		pl, p := parseLimits(o.Limits, cur)
		usage = append(usage, p...)
		if len(p) > 0 {
			o.unparsed = append(o.unparsed, "constraints.periodic_limits")
		}
		req.Constraints.PeriodicLimits = pl
	}
	return req, usage
}

// parseMandateTime reads a validity time; a bare date means its start (UTC).
func parseMandateTime(s string) (time.Time, error) {
	if t, err := time.Parse(time.DateOnly, s); err == nil {
		return t, nil
	}
	return api.ParseMandateTime(s)
}

// parseLimits reads --limit PERIOD=AMOUNT[:ALIGNMENT] flags.
func parseLimits(flags []string, currency string) (*api.PeriodicLimits, []string) {
	var usage []string
	pl := &api.PeriodicLimits{}
	slots := map[string]**api.PeriodicLimit{
		"day": &pl.Day, "week": &pl.Week, "fortnight": &pl.Fortnight,
		"month": &pl.Month, "half_year": &pl.HalfYear, "year": &pl.Year,
	}
	for _, f := range flags {
		period, rest, ok := strings.Cut(f, "=")
		period = strings.ToLower(strings.TrimSpace(strings.ReplaceAll(period, "-", "_")))
		if !ok {
			usage = append(usage, fmt.Sprintf("--limit %q: want PERIOD=AMOUNT[:ALIGNMENT], e.g. month=5000.00:calendar", f))
			continue
		}
		slot, known := slots[period]
		if !known {
			usage = append(usage, fmt.Sprintf("--limit %q: period must be day, week, fortnight, month, half_year or year", f))
			continue
		}
		if *slot != nil {
			usage = append(usage, fmt.Sprintf("--limit %s given twice", period))
			continue
		}
		amount, align, hasAlign := strings.Cut(rest, ":")
		if !hasAlign {
			align = api.AlignmentConsent
		}
		minor, err := api.ParseAmount(strings.TrimSpace(amount), currency, false)
		if err != nil {
			usage = append(usage, fmt.Sprintf("--limit %q: amount: %v", f, err))
			continue
		}
		*slot = &api.PeriodicLimit{MaximumAmount: minor, PeriodAlignment: strings.TrimSpace(align)}
	}
	return pl, usage
}

// MandateCreator is the part of the api client `mandate create` uses.
type MandateCreator interface {
	CreateMandate(ctx context.Context, req *api.MandateRequest, idempotencyKey string) (*api.MandateResponse, error)
}

// CreateMandate validates and creates a VRP mandate.
func CreateMandate(ctx context.Context, s *cmdutil.Streams, c MandateCreator, v api.ValidateOptions, o *MandateOptions) error {
	req, usage := o.Request()
	probs := dropFields(api.ValidateMandate(req, v), o.unparsed...)
	summary := func() [][2]string {
		c := req.Constraints
		return append([][2]string{{"type", req.Mandate.Type}, {"currency", req.Currency},
			{"max per payment", api.FormatAmount(c.MaximumIndividualAmount, req.Currency)},
			{"valid", c.ValidFrom + " to " + c.ValidTo}}, beneficiaryLines(req.Mandate.Beneficiary)...)
	}
	// Its largest single payment is what the operator types on
	// production, as the hub shows a mandate awaiting approval.
	typed := api.FormatAmountPlain(req.Constraints.MaximumIndividualAmount, req.Currency)
	return create(s, "mandate", usage, probs, &o.requestFlags, summary, typed, func(key string) (Created, error) {
		resp, err := c.CreateMandate(ctx, req, key)
		if err != nil {
			return Created{}, err
		}
		return Created{ID: resp.ID, UserID: resp.User.ID, Status: resp.Status, ResourceToken: resp.ResourceToken}, nil
	})
}
