package doctor

import (
	"context"
	"strings"
)

// checkReplication asks the replica's store for its list of replicas
// (Options.ProbeReplica) and says how to fix what stops it.
func checkReplication(ctx context.Context, o Options) []Check {
	r := o.Config.Replication
	if r.URL == "" || o.ProbeReplica == nil {
		return nil
	}
	c := Check{Name: "replication", Status: OK, Detail: "replicas reachable at " + o.ReplicaTarget}
	err := o.ProbeReplica(ctx)
	if err == nil {
		return []Check{c}
	}
	c.Status, c.Detail = Fail, err.Error()
	msg := err.Error()
	switch {
	case strings.Contains(msg, "no litestream binary"):
		c.Fix = "install the package again (it ships /usr/lib/dormouse/litestream), run make build (bin/litestream), or set replication.litestream"
	case strings.Contains(msg, "no S3 credentials"), strings.Contains(msg, "InvalidAccessKeyId"),
		strings.Contains(msg, "SignatureDoesNotMatch"), strings.Contains(msg, "AccessDenied"):
		c.Fix = "check AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY in /etc/default/dormouse (mode 0600), and that the key may list and write the bucket; then sudo systemctl restart dormouse"
	case strings.Contains(msg, "RequestTimeTooSkewed"):
		c.Fix = "the clock is off: S3 refuses requests signed more than 15 minutes away from its time; enable NTP (timedatectl set-ntp true)"
	case strings.Contains(msg, "NoSuchBucket"):
		c.Fix = "create the bucket named in replication.url, or fix its name"
	case strings.Contains(msg, "no such file or directory"), strings.Contains(msg, "permission denied"):
		c.Fix = "mount the disk of replication.url and make it writable by the dormouse user; outside /var/lib/dormouse the unit also needs systemctl edit dormouse: [Service] ReadWritePaths=DIR"
	default:
		c.Fix = "check replication.endpoint (scheme, host, port) and that this box reaches it: curl -I " + r.Endpoint
	}
	return []Check{c}
}
