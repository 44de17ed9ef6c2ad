DROP FUNCTION author_published_count(author);
