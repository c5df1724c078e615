package hubclient

import (
	"context"
	"net/http"
	"net/url"

	"github.com/paydash/paydash/webhookrelay/hub"
)

// Check asks the hub what its pipeline would say of a request if it were
// approved now (duplicates, funds), without sending anything.
func (c *Client) Check(ctx context.Context, id string) ([]hub.Warning, error) {
	var r hub.CheckResponse
	_, err := c.do(ctx, http.MethodGet, hub.PathApprovals+"/"+url.PathEscape(id)+"/check", nil, nil, &r)
	return r.Warnings, err
}
