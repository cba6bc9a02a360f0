"""Reporting to other systems, off unless configured: xAPI statements, the LRS forwarder, the SCORM
package, the durable outbox, and the LTI 1.3 tool."""
