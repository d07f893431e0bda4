package daemon

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"

	"github.com/dormouse-dev/dormouse/internal/config"
	"github.com/dormouse-dev/dormouse/internal/files"
	"github.com/dormouse-dev/dormouse/internal/llm"
	"github.com/dormouse-dev/dormouse/internal/watch"
)

// DescribeImages gives the file pipeline ing the configured vision model (llm.vision), so that
// images of watched folders and uploads are described by it; without llm.vision (or with the
// offline provider) ing is left as it is, and images keep their metadata only. The model has its
// own client, with its own count of llm.budget, as the answerer does. A client that cannot be set
// up (a missing API key) is returned as the error and also makes every image fail with it: the
// images are listed as failing and retried, rather than stored undescribed for good. Images are
// described one at a time.
func DescribeImages(ctx context.Context, cfg config.Config, environ []string, ing *watch.Ingester, log *slog.Logger) error {
	if !cfg.LLM.Vision || cfg.LLM.Provider == "offline" {
		return nil
	}
	lc := LLMConfig(cfg, environ, log)
	lc.Model = cmp.Or(cfg.LLM.VisionModel, cfg.LLM.Model)
	model := cmp.Or(lc.Model, llm.DefaultModel(lc.Provider))
	ing.DescribedBy = lc.Provider + "/" + model
	client, err := llm.New(ctx, lc)
	if err == nil {
		err = llm.VisionSupport(client.Provider(), client.Model())
	}
	if err != nil {
		err = fmt.Errorf("set up the vision model %s: %w", ing.DescribedBy, err)
		ing.Describe = func(context.Context, string, string, []byte) (string, error) { return "", err }
		return err
	}
	// One image at a time: a model on the Pi itself runs one anyway (more would only queue into
	// timeouts), and a picture being shrunk holds up to 4 bytes a pixel.
	one := make(chan struct{}, 1)
	ing.Describe = func(ctx context.Context, name, mime string, data []byte) (string, error) {
		select {
		case one <- struct{}{}:
		case <-ctx.Done():
			return "", ctx.Err()
		}
		defer func() { <-one }()
		out, _, err := client.DescribeImage(ctx, name, llm.Image{MIME: mime, Data: data})
		if errors.Is(err, llm.ErrBadImage) || errors.Is(err, llm.ErrImageTooLarge) {
			err = fmt.Errorf("%w: %w", files.ErrUndescribable, err) // kept with its metadata, not retried
		}
		return out, err
	}
	return nil
}
