-- A capture is kept whenever it is not the same capture: another time, status or payload (the method
-- of a URL's response is always a GET: other methods' answers are kept in capture only).
-- 0007 kept one only for another time, so two responses of one URL in the same second (WARC-Date has
-- seconds) were merged into the later one and the earlier was lost. The same capture written twice
-- (a WARC imported again) is still kept once.
DROP TRIGGER response_keeps_captures;

CREATE TRIGGER response_keeps_captures BEFORE UPDATE ON response
WHEN new.fetched_at IS NOT old.fetched_at OR new.status IS NOT old.status OR new.body_id IS NOT old.body_id
BEGIN
  INSERT INTO capture (url_id, run_id, status, content_type, charset, location, headers, body_id, fetched_at,
                       elapsed_ms, links_found, links_new, title, canonical, robots, links_dropped, http_version,
                       reason, raw_headers, request_method, request_target, request_headers, remote_ip, started_at,
                       revalidated)
  VALUES (old.url_id, old.run_id, old.status, old.content_type, old.charset, old.location, old.headers, old.body_id,
          old.fetched_at, old.elapsed_ms, old.links_found, old.links_new, old.title, old.canonical, old.robots,
          old.links_dropped, old.http_version, old.reason, old.raw_headers, old.request_method, old.request_target,
          old.request_headers, old.remote_ip, old.started_at, old.revalidated);
END;
