package envelope

import (
	"os"
	"time"
)

// Caches (the CLI Agent Spec's O-018). A command that declares a cache
// among its filesystem side effects gets --no-cache and --cache-ttl; it
// asks [Output.CacheFresh] before reading a cached file and tells
// [Output.UsedCache] when it did, and the answer says so in
// meta.cache_used; it writes its cache unless [Output.CacheOff].

// CacheFresh reports whether the cached file or directory at path may be
// used: it exists, --no-cache (or --cache-ttl 0) was not given, and it was
// written within --cache-ttl, when given. A relative path resolves against
// [Output.Cwd]. A command that gets false fetches afresh.
func (o *Output) CacheFresh(path string) bool {
	if o.s.NoCache {
		return false
	}
	info, err := os.Stat(string(o.Abs(path)))
	if err != nil {
		return false
	}
	return o.s.CacheTTL <= 0 || time.Since(info.ModTime()) <= o.s.CacheTTL
}

// CacheOff reports whether the caller turned the cache off (--no-cache, or
// --cache-ttl 0). The command then neither reads nor writes its cache: a
// fresh answer stored where the caller said not to touch would be a write
// it did not ask for. CacheFresh is false for every path then.
func (o *Output) CacheOff() bool { return o.s.NoCache }

// UsedCache records that the answer was made, at least in part, from
// cached data: meta.cache_used is true.
func (o *Output) UsedCache() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.cacheUsed = true
}

// CacheUsed reports whether the command said it used cached data.
func (o *Output) CacheUsed() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.cacheUsed
}
