package envelope

// streamPagination gives a stream's summary its pagination (the CLI Agent
// Spec's O-004: the last line of a stream carries it): a stream ends with
// every item written, so it is one whole page of as many items as it
// streamed. A command that paged the stream itself keeps its own.
func (o *Output) streamPagination(meta *Meta, items int) {
	if meta.Pagination == nil {
		meta.Pagination = o.paginationFor(items, 0, items)
	}
}
