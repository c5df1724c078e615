package hubclient

import (
	"context"
	"net/http"
	"net/url"

	"github.com/paydash/paydash/webhookrelay/hub/hubapi"
)

// Check asks the hub what its pipeline would say of a request if it were
// approved now (duplicates, funds), without sending anything.
func (c *Client) Check(ctx context.Context, id string) ([]hubapi.Warning, error) {
	var r hubapi.CheckResponse
	_, err := c.do(ctx, http.MethodGet, hubapi.PathApprovals+"/"+url.PathEscape(id)+"/check", nil, nil, &r)
	return r.Warnings, err
}
